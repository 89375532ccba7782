#include "eval/result.h"

namespace kforge {

nlohmann::json compile_stats_json(const CompileResult& compiled) {
  return {{"ok", compiled.ok},
          {"seconds", compiled.seconds},
          {"cache_hit", compiled.cache_hit},
          {"registers", compiled.registers},
          {"shared_bytes", compiled.shared_bytes},
          {"local_bytes", compiled.local_bytes},
          {"spill_bytes", compiled.spill_bytes},
          {"max_threads_per_block", compiled.max_threads_per_block},
          {"key", compiled.key}};
}

CandidateMetrics candidate_metrics(const EvalResult& result) {
  CandidateMetrics metrics;
  metrics.status = result.status;
  metrics.message = result.message;
  metrics.speedup = result.speedup;
  metrics.gbps = result.gbps;
  metrics.gflops = result.gflops;
  metrics.max_abs_err = result.max_abs_err;
  metrics.max_rel_err = result.max_rel_err;
  if (result.speedup_rounds > 0) {
    metrics.speedup_ci_low = result.speedup_ci_low;
    metrics.speedup_ci_high = result.speedup_ci_high;
    metrics.speedup_rounds = result.speedup_rounds;
  }
  if (result.timing) metrics.median_ms = result.timing->median_ms;
  metrics.timing = result.timing;
  metrics.baseline_timing = result.baseline_timing;
  metrics.warnings = result.warnings;
  metrics.checks = result.checks;
  return metrics;
}

EvalResult eval_result_from_metrics(const CandidateMetrics& metrics) {
  EvalResult result;
  result.status = metrics.status.value_or(CandidateStatus::RuntimeError);
  result.message = metrics.message;
  result.speedup = metrics.speedup.value_or(0);
  result.speedup_ci_low = metrics.speedup_ci_low.value_or(0);
  result.speedup_ci_high = metrics.speedup_ci_high.value_or(0);
  result.speedup_rounds = metrics.speedup_rounds;
  result.gbps = metrics.gbps;
  result.gflops = metrics.gflops;
  result.max_abs_err = metrics.max_abs_err;
  result.max_rel_err = metrics.max_rel_err;
  result.timing = metrics.timing;
  result.baseline_timing = metrics.baseline_timing;
  result.warnings = metrics.warnings;
  result.checks = metrics.checks;
  return result;
}

}  // namespace kforge
