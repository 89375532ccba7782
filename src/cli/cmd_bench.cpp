// `kforge bench TASK`: compile, verify and time one kernel configuration.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/interrupts.h"
#include "cli/eval_flag_options.h"
#include "eval/plausibility.h"
#include "eval/timing.h"
#include "util/files.h"

namespace kforge::cli {
namespace {
struct BenchArgs {
  std::string path;
  std::vector<std::string> params;
  std::string source;
  bool json = false;
  EvalFlags eval;
};

void print_human(const Task& task, const DeviceSummary& device, const EvalResult& result, bool compared_to_original) {
  const auto& c = result.compile;
  fmt::print("task        {} ({}) on {}\n", task.name, to_string(task.kernel.language),
             device.info.value("name", std::string("?")));
  fmt::print("compile     {:.3f} s{}{}\n", c.seconds, c.cache_hit ? " (cached)" : "",
             c.registers >= 0 ? fmt::format(", {} registers, {} B shared, {} B spilled", c.registers,
                                            std::max(c.shared_bytes, 0), std::max(c.spill_bytes, 0))
                              : "");
  if (result.status != CandidateStatus::Correct) {
    fmt::print("status      {}: {}\n", to_string(result.status), result.message);
    return;
  }
  fmt::print("correct     yes: {} checks over {} sizes, max abs err {:.3g}, max rel err {:.3g}\n",
             result.checks.size(), task.sizes.size(), result.max_abs_err, result.max_rel_err);
  const TimingStats& t = *result.timing;
  fmt::print("latency     median {:.4f} ms (95% CI {:.4f}-{:.4f} ms), spread {:.2f}%, min {:.4f} ms, {} samples\n",
             t.median_ms, t.ci_low_ms, t.ci_high_ms, 100 * t.spread, t.min_ms, t.samples);
  if (compared_to_original && result.speedup_rounds > 0)
    fmt::print("vs original {:.3f}x (95% CI {:.3f}-{:.3f}x over {} paired rounds): {}\n", result.speedup,
               result.speedup_ci_low, result.speedup_ci_high, result.speedup_rounds,
               result.speedup_ci_low > 1    ? "faster"
               : result.speedup_ci_high < 1 ? "slower"
                                            : "no significant difference");
  if (const auto warning = noise_warning(t)) fmt::print("warning     {}\n", *warning);
  std::string fraction;
  if (device.copy_gbps > 0) {
    // Above the copy bandwidth but within the margin: measurement error, said as such (a figure
    // beyond the margin never gets here: the evaluator rejects it as impossible).
    fraction = fmt::format(" = {:.0f}% of measured copy bandwidth {:.1f} GB/s", 100 * result.gbps / device.copy_gbps,
                           device.copy_gbps);
    if (result.gbps > device.copy_gbps)
      fraction += fmt::format(" (above it: within the {:.2f}x margin kforge allows for measurement error)",
                              kBandwidthMargin);
  }
  fmt::print("throughput  {:.1f} GB/s{}\n", result.gbps, fraction);
  if (result.gflops > 0) fmt::print("compute     {:.1f} GFLOP/s\n", result.gflops);
}
}  // namespace

Action setup_bench(CLI::App& sub) {
  auto args = std::make_shared<BenchArgs>();
  sub.add_option("task", args->path, "Manifest, task folder or kernel file")->required();
  sub.add_option("-p,--param", args->params, "Tunable value NAME=VALUE (repeatable)");
  sub.add_option("--source", args->source, "Benchmark this source instead of the task's");
  sub.add_flag("--json", args->json, "Machine-readable output");
  add_eval_flags(sub, args->eval);
  return [args] {
    install_interrupt_handling();  // before any thread: Ctrl-C leaves no worker behind
    int failures = 0;
    nlohmann::json all = nlohmann::json::array();
    for (Task& task : load_tasks(args->path)) {
      Evaluator evaluator(task, eval_options(args->eval, task.kernel.language));
      KernelVariant variant = evaluator.baseline_variant();
      variant.params = parse_param_overrides(task, args->params);
      if (!args->source.empty()) variant.source = read_file(args->source);
      const EvalResult result = evaluator.evaluate(variant);
      const DeviceSummary device = evaluator.device();
      if (args->json) {
        nlohmann::json entry = to_json(candidate_metrics(result));
        entry["task"] = task.name;
        entry["compile"] = compile_stats_json(result.compile);
        entry["device"] = device.info;
        entry["copy_gbps"] = device.copy_gbps;
        if (result.timing)
          if (const auto warning = noise_warning(*result.timing)) entry["warning"] = *warning;
        all.push_back(entry);
      } else {
        const KernelVariant original = evaluator.baseline_variant();
        print_human(evaluator.task(), device, result,
                    variant.source != original.source || variant.params != original.params);
      }
      failures += result.status == CandidateStatus::Correct ? 0 : 1;
    }
    if (args->json) fmt::print("{}\n", all.dump(2));
    return failures == 0 ? 0 : 1;
  };
}

}  // namespace kforge::cli
