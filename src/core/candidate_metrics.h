// What the evaluation of one candidate measured, as one typed struct with one JSON mapping.
// The evaluator fills it, the search and the final verification add to it, the run store
// keeps it (the `metrics` column and the baseline setting) and the report and the CLI read
// it: nobody reads or writes metric keys by hand. from_json tolerates missing keys and keys
// of the wrong type (run.db files written by older versions keep working) and keeps keys it
// does not know in `extra`, so a round trip loses nothing.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/candidate_status.h"

namespace kforge {

struct TimingStats {
  double median_ms = 0;
  double min_ms = 0;
  double mean_ms = 0;
  double spread = 0;        // interquartile range / median
  double rel_ci = 0;        // half-width of the ~95% confidence interval of the median / median
  double ci_low_ms = 0;     // distribution-free 95% CI of the median (binomial order statistics)
  double ci_high_ms = 0;
  int samples = 0;
  double wall_ms = 0;       // host wall time per launch incl. full device sync (catches hidden streams)
};

// Result of running one variant against the reference on one size and seed.
struct SizeCheck {
  std::string size;
  std::uint64_t seed = 0;
  bool passed = false;
  double max_abs_err = 0;
  double max_rel_err = 0;
  std::int64_t mismatches = 0;
  std::string message;  // first failure, in words (or, when passed, what the draw skipped)
  std::string draw;     // which inputs: "manifest", "large", ... (protocol/check_inputs.h)
  std::string inputs;   // the draw in words, with each argument's distribution
  bool out_of_bounds = false;  // failed because memory beside a buffer was overwritten
};

// One size's figures from the final verification (absent figures are not written).
struct SizeResult {
  std::string name;
  std::optional<double> baseline_ms;
  std::optional<double> best_ms;
  std::optional<double> speedup;  // median of paired ratios on this size
  std::optional<double> speedup_ci_low;
  std::optional<double> speedup_ci_high;  // "speedup_significant" is written as ci_low > 1
  std::optional<int> sessions;
  std::optional<double> spread;
  nlohmann::json extra = nlohmann::json::object();  // other per-size figures, kept as they were
};

// The final verification's verdict on a candidate.
struct FinalCheck {
  bool passed = false;
  std::string message;  // why it failed; empty when it passed
};

struct CandidateMetrics {
  // Set for every evaluation result; a candidate without one has empty() metrics.
  std::optional<CandidateStatus> status;
  std::string message;  // one line: why it failed, or a summary
  // Median over paired rounds of baseline / candidate; its 95% interval when measured
  // ("faster" means speedup_ci_low > 1; "speedup_significant" is written from it).
  std::optional<double> speedup;
  std::optional<double> speedup_ci_low;
  std::optional<double> speedup_ci_high;
  int speedup_rounds = 0;  // paired rounds behind the interval; 0: not written
  double gbps = 0;
  double gflops = 0;
  double max_abs_err = 0;
  double max_rel_err = 0;
  // The headline latency: normalised to the stored baseline by the search, the verified
  // figure after the final verification.
  std::optional<double> median_ms;
  std::optional<double> measured_median_ms;  // what this session measured, before normalising
  std::optional<TimingStats> timing;
  std::optional<TimingStats> baseline_timing;  // measured in the same worker session
  std::vector<std::string> warnings;
  std::vector<SizeCheck> checks;
  // Final verification: per-size figures, the search's figures it replaced, and its verdict.
  std::vector<SizeResult> sizes;
  std::optional<double> search_speedup;
  std::optional<double> search_median_ms;
  std::optional<FinalCheck> final_check;
  nlohmann::json profile;  // the baseline's KernelProfile (kforge profile); null when none
  nlohmann::json extra = nlohmann::json::object();  // keys this version does not know 

  // Nothing recorded: stored as NULL.
  bool empty() const;
};

nlohmann::json to_json(const TimingStats& stats);
TimingStats timing_from_json(const nlohmann::json& json);
nlohmann::json to_json(const SizeCheck& check);
SizeCheck size_check_from_json(const nlohmann::json& json);
nlohmann::json to_json(const SizeResult& size);
SizeResult size_result_from_json(const nlohmann::json& json, const std::string& fallback_name);

// An object (null when empty()); the inverse of metrics_from_json.
nlohmann::json to_json(const CandidateMetrics& metrics);
// Any JSON value: null or a non-object gives empty metrics; `sizes` may be an array of
// objects with "name" or an object keyed by size name.
CandidateMetrics metrics_from_json(const nlohmann::json& json);

}  // namespace kforge
