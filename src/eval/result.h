// What an evaluation of one kernel variant produces.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "core/candidate_metrics.h"
#include "task/task.h"

namespace kforge {

// A kernel to evaluate: source text plus tunable values and extra compiler options.
struct KernelVariant {
  std::string source;
  ParamValues params;
  std::vector<std::string> options;
  std::string kernel;  // entry point; empty = the task's
};


struct EvalResult {
  CandidateStatus status = CandidateStatus::Pending;
  std::string message;  // one line: why it failed, or a summary
  CompileResult compile;
  std::vector<SizeCheck> checks;
  std::optional<TimingStats> timing;
  std::optional<TimingStats> baseline_timing;  // measured in the same worker session
  double speedup = 0;          // median over rounds of baseline / candidate (paired, same round)
  double speedup_ci_low = 0;   // 95% CI of that median; "faster" means speedup_ci_low > 1
  double speedup_ci_high = 0;
  int speedup_rounds = 0;
  double gbps = 0;
  double gflops = 0;
  double max_abs_err = 0;
  double max_rel_err = 0;
  std::vector<std::string> warnings;  // e.g. a tolerance that cannot tell an input-free answer
};

nlohmann::json compile_stats_json(const CompileResult& compiled);
// What is stored of a result (core/candidate_metrics.h), and a stored result read back
// (compile details aside).
CandidateMetrics candidate_metrics(const EvalResult& result);
EvalResult eval_result_from_metrics(const CandidateMetrics& metrics);

}  // namespace kforge
