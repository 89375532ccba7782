#include "cli/final_verification.h"

#include <algorithm>
#include <cmath>

#include "search/evolution.h"
#include "util/log.h"

namespace kforge::cli {
namespace {

struct Interval {
  double speedup = 0, low = 0, high = 0;
};

// Ratio of medians with its ~95% interval: the relative half-widths of the two medians' intervals
// add in quadrature (delta method for a ratio of independent estimates).
Interval speedup_interval(const TimingStats& baseline, const TimingStats& candidate) {
  Interval interval;
  if (baseline.median_ms <= 0 || candidate.median_ms <= 0) return interval;
  interval.speedup = baseline.median_ms / candidate.median_ms;
  const double rel = std::hypot(baseline.rel_ci, candidate.rel_ci);
  interval.low = interval.speedup * (1 - rel);
  interval.high = interval.speedup * (1 + rel);
  return interval;
}

constexpr int kTimingSessions = 3;

// Several sessions' intervals as one: the median speedup, and the hull of the intervals.
Interval combine(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) { return a.speedup < b.speedup; });
  Interval combined = intervals[intervals.size() / 2];
  for (const Interval& interval : intervals) {
    combined.low = std::min(combined.low, interval.low);
    combined.high = std::max(combined.high, interval.high);
  }
  return combined;
}

// The outcome of verifying one candidate: empty `failure` means it passed every check.
struct Attempt {
  std::string failure;
  nlohmann::json sizes = nlohmann::json::array();
  Interval timing_size;
};

Attempt verify_one(Evaluator& evaluator, const KernelVariant& variant) {
  Attempt attempt;
  const CompileResult compiled = evaluator.compile(variant);
  const EvalResult before = evaluator.check(variant, compiled);
  if (before.status != EvalStatus::Correct) {
    attempt.failure = before.message;
    return attempt;
  }
  const KernelVariant baseline = evaluator.baseline_variant();
  const CompileResult baseline_compiled = evaluator.compile(baseline);
  bool timing_size = true;
  for (const auto& size : evaluator.task().sizes) {
    // The timing size is measured in several independent sessions (fresh buffers each time):
    // placement and clock effects shift a whole session, and an interval from one session's
    // samples cannot see them. The interval spans every session's interval.
    const int sessions = timing_size ? kTimingSessions : 1;
    timing_size = false;
    std::vector<Interval> intervals;
    TimingStats baseline_stats, best_stats;
    for (int session = 0; session < sessions; ++session) {
      std::string error;
      const auto timings =
          evaluator.time_together({{&baseline, &baseline_compiled}, {&variant, &compiled}}, error, size.name);
      if (!timings[0] || !timings[1]) {
        attempt.failure = "timing on size '" + size.name + "': " + error;
        return attempt;
      }
      intervals.push_back(speedup_interval(*timings[0], *timings[1]));
      baseline_stats = *timings[0];
      best_stats = *timings[1];
    }
    const Interval interval = combine(intervals);
    if (attempt.sizes.empty()) attempt.timing_size = interval;
    attempt.sizes.push_back({{"name", size.name},
                             {"baseline_ms", baseline_stats.median_ms},
                             {"best_ms", best_stats.median_ms},
                             {"speedup", interval.speedup},
                             {"speedup_low", interval.low},
                             {"speedup_high", interval.high},
                             {"sessions", sessions},
                             {"spread", best_stats.spread}});
    log::info("  size {:<12} baseline {:.4f} ms  best {:.4f} ms  {:.2f}x [{:.2f}, {:.2f}]", size.name,
              baseline_stats.median_ms, best_stats.median_ms, interval.speedup, interval.low, interval.high);
  }
  // Results after many launches must still be right: a kernel that counts its launches and
  // stops working after the first few passes every check made before timing.
  const EvalResult after = evaluator.check(variant, compiled);
  if (after.status != EvalStatus::Correct) attempt.failure = "correct before timing, wrong after it: " + after.message;
  return attempt;
}

void mark_incorrect(RunStore& store, const CandidateRecord& candidate, const std::string& reason) {
  CandidateResult result;
  result.status = CandidateStatus::Incorrect;
  result.status_message = "final verification: " + reason;
  result.compile_log = candidate.compile_log;
  result.compile_stats = candidate.compile_stats;
  result.metrics = candidate.metrics;
  result.metrics["final_check"] = {{"status", "incorrect"}, {"message", reason}};
  result.profile = candidate.profile;
  result.analysis = candidate.analysis;
  store.update_candidate_result(candidate.id, result);
}

// The verified figures replace the search's: every headline reads metrics.speedup and
// metrics.median_ms, and those must be the numbers that the final verification stands behind.
void record_verified(RunStore& store, const CandidateRecord& candidate, const Attempt& attempt) {
  CandidateResult result;
  result.status = CandidateStatus::Correct;
  result.status_message = candidate.status_message;
  result.compile_log = candidate.compile_log;
  result.compile_stats = candidate.compile_stats;
  result.metrics = candidate.metrics;
  if (candidate.speedup()) result.metrics["search_speedup"] = *candidate.speedup();
  if (candidate.median_ms()) result.metrics["search_median_ms"] = *candidate.median_ms();
  result.metrics["speedup"] = attempt.timing_size.speedup;
  result.metrics["speedup_low"] = attempt.timing_size.low;
  result.metrics["speedup_high"] = attempt.timing_size.high;
  result.metrics["median_ms"] = attempt.sizes.front().value("best_ms", 0.0);
  result.metrics["sizes"] = attempt.sizes;
  result.metrics["final_check"] = {{"status", "correct"}};
  result.profile = candidate.profile;
  result.analysis = candidate.analysis;
  store.update_candidate_result(candidate.id, result);
}
}  // namespace

FinalVerdict verify_final(Evaluator& evaluator, RunStore& store, std::int64_t baseline_id, int seeds,
                          int max_candidates) {
  EvalOptions options = evaluator.options();
  options.check_seeds = seeds;
  Evaluator final_evaluator(evaluator.task(), options);  // its own worker: a clean device state
  FinalVerdict verdict;
  CandidateFilter filter;
  filter.statuses = {CandidateStatus::Correct};
  filter.fastest_first = true;
  int attempts = 0;
  for (const CandidateRecord& candidate : store.list_candidates(filter)) {
    if (candidate.id == baseline_id) break;  // nothing slower than the original is worth verifying
    if (attempts++ == max_candidates) break;
    const KernelVariant variant = individual_from_record(candidate).variant;
    const Attempt attempt = verify_one(final_evaluator, variant);
    EvaluationRecord record;
    record.candidate_id = candidate.id;
    record.kind = "final";
    record.result = {{"status", attempt.failure.empty() ? "correct" : "incorrect"},
                     {"message", attempt.failure},
                     {"sizes", attempt.sizes}};
    store.add_evaluation(record);
    if (!attempt.failure.empty()) {
      log::warn("candidate #{} failed the final verification and is marked incorrect: {}", candidate.id,
                attempt.failure);
      mark_incorrect(store, candidate, attempt.failure);
      ++verdict.rejected;
      continue;
    }
    if (attempt.timing_size.low <= 1.0) {
      log::info("  candidate #{}: {:.2f}x [{:.2f}, {:.2f}] on re-measurement: not measurably faster", candidate.id,
                attempt.timing_size.speedup, attempt.timing_size.low, attempt.timing_size.high);
      continue;
    }
    record_verified(store, candidate, attempt);
    verdict.best_id = candidate.id;
    verdict.sizes = attempt.sizes;
    verdict.speedup = attempt.timing_size.speedup;
    verdict.speedup_low = attempt.timing_size.low;
    verdict.speedup_high = attempt.timing_size.high;
    verdict.search_speedup = candidate.speedup().value_or(0);
    break;
  }
  store.set_setting(kVerifiedBestSetting, verdict.best_id ? *verdict.best_id : baseline_id);
  return verdict;
}

}  // namespace kforge::cli
