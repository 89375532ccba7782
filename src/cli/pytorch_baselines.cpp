#include "cli/pytorch_baselines.h"

#include <algorithm>

#include "util/files.h"
#include "util/log.h"

namespace kforge::cli {

std::string torch_compile_candidate(const std::string& problem_source) {
  return problem_source +
         "\n\n# kforge: the torch.compile baseline of this problem.\n"
         "def ModelNew(*init_inputs):\n"
         "    import torch as _torch\n"
         "    return _torch.compile(Model(*init_inputs))\n";
}

nlohmann::json measure_pytorch_baselines(const Task& task, EvalOptions options) {
  // Inductor compiles on the first call, inside the check: allow minutes, not seconds.
  options.check_timeout_s = std::max(options.check_timeout_s, 600.0);
  options.time_timeout_s = std::max(options.time_timeout_s, 600.0);
  Evaluator evaluator(task, options);
  KernelVariant compiled_model = evaluator.baseline_variant();
  compiled_model.source = torch_compile_candidate(read_file(task.kernel.source));
  const EvalResult result = evaluator.evaluate(compiled_model);
  if (result.status != EvalStatus::Correct || !result.timing || !result.baseline_timing) {
    log::info("  torch.compile baseline: {} ({})", to_string(result.status), result.message);
    return {{"error", to_string(result.status) + ": " + result.message}};
  }
  log::info("  baselines: eager {:.4f} ms, torch.compile {:.4f} ms ({:.2f}x eager)", result.baseline_timing->median_ms,
            result.timing->median_ms, result.speedup);
  return {{"eager_ms", result.baseline_timing->median_ms},
          {"compile_ms", result.timing->median_ms},
          {"compile_speedup", result.speedup}};
}

}  // namespace kforge::cli
