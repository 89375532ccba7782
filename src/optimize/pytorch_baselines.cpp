#include "optimize/pytorch_baselines.h"

#include <algorithm>

#include "util/files.h"
#include "util/log.h"

namespace kforge::optimize {

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
  if (result.status != CandidateStatus::Correct || !result.timing || !result.baseline_timing) {
    log::info("  torch.compile baseline: {} ({})", to_string(result.status), result.message);
    return {{"error", to_string(result.status) + ": " + result.message}};
  }
  log::info("  baselines: eager {:.4f} ms, torch.compile {:.4f} ms ({:.2f}x eager)", result.baseline_timing->median_ms,
            result.timing->median_ms, result.speedup);
  return {{"eager_ms", result.baseline_timing->median_ms},
          {"compile_ms", result.timing->median_ms},
          {"compile_speedup", result.speedup}};
}

nlohmann::json measure_reference_baselines(const Task& task, EvalOptions options) {
  if (language_facts(task.kernel.language).pytorch_baselines != PyTorchBaselines::OfTheReference || !task.reference ||
      task.reference->language != Language::PyTorch)
    return nullptr;
  options.time_timeout_s = std::max(options.time_timeout_s, 600.0);  // Inductor compiles in the warm-up
  Evaluator evaluator(task, options);
  const KernelVariant triton = evaluator.baseline_variant();
  const KernelVariant eager = evaluator.reference_variant();
  KernelVariant compiled = eager;
  compiled.source += "\n\n# kforge: the torch.compile baseline of this reference.\nimport torch as _torch\n" +
                     eager.kernel + " = _torch.compile(" + eager.kernel + ")\n";
  const std::vector<KernelVariant> variants{triton, eager, compiled};
  const std::vector<CompileResult> builds = evaluator.compile_all(variants);
  for (const auto& build : builds)
    if (!build.ok) return {{"error", "does not compile: " + first_error_line(build.log)}};
  std::string error;
  const auto timings = evaluator.time_together(
      {{&variants[0], &builds[0]}, {&variants[1], &builds[1]}, {&variants[2], &builds[2]}}, error);
  if (!timings[0] || !timings[1] || !timings[2]) {
    log::info("  PyTorch baselines: {}", error);
    return {{"error", error}};
  }
  log::info("  baselines: Triton original {:.4f} ms, PyTorch eager {:.4f} ms, torch.compile {:.4f} ms",
            timings[0]->median_ms, timings[1]->median_ms, timings[2]->median_ms);
  return {{"triton_ms", timings[0]->median_ms}, {"eager_ms", timings[1]->median_ms},
          {"compile_ms", timings[2]->median_ms}};
}

}  // namespace kforge::optimize
