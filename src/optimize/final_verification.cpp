#include "optimize/final_verification.h"

#include <algorithm>

#include "search/evolution.h"
#include "util/log.h"

namespace kforge::optimize {
namespace {

constexpr int kTimingSessions = 3;

// Several sessions' estimates as one: the median speedup, and the hull of the intervals.
SpeedupEstimate combine(std::vector<SpeedupEstimate> estimates) {
  std::sort(estimates.begin(), estimates.end(),
            [](const SpeedupEstimate& a, const SpeedupEstimate& b) { return a.median < b.median; });
  SpeedupEstimate combined = estimates[estimates.size() / 2];
  for (const SpeedupEstimate& estimate : estimates) {
    combined.ci_low = std::min(combined.ci_low, estimate.ci_low);
    combined.ci_high = std::max(combined.ci_high, estimate.ci_high);
  }
  return combined;
}

nlohmann::json sizes_json(const std::vector<SizeResult>& sizes) {
  nlohmann::json array = nlohmann::json::array();
  for (const SizeResult& size : sizes) array.push_back(to_json(size));
  return array;
}

// The outcome of verifying one candidate: empty `failure` means it passed every check.
struct Attempt {
  std::string failure;
  std::vector<SizeResult> sizes;
  SpeedupEstimate timing_size;
};

Attempt verify_one(Evaluator& evaluator, const KernelVariant& variant) {
  Attempt attempt;
  const CompileResult compiled = evaluator.compile(variant);
  const EvalResult before = evaluator.check(variant, compiled);
  if (before.status != CandidateStatus::Correct) {
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
    std::vector<SpeedupEstimate> estimates;
    TimingStats baseline_stats, best_stats;
    for (int session = 0; session < sessions; ++session) {
      // Verified timing: the worker checks the outputs of the timed launches too.
      const TimedRun run = evaluator.time_variants({{&baseline, &baseline_compiled}, {&variant, &compiled}}, size.name);
      const TimedVariant* base = run.error.empty() ? &run.variants[0] : nullptr;
      const TimedVariant* timed = run.error.empty() ? &run.variants[1] : nullptr;
      if (!base || !timed || !base->stats || !timed->stats) {
        attempt.failure = "timing on size '" + size.name + "': " + (run.error.empty() ? "no timing" : run.error);
        return attempt;
      }
      if (!timed->verification_passed) {
        attempt.failure = "size '" + size.name + "': timed launches: " + timed->verification_message;
        return attempt;
      }
      // Paired rounds: the median of per-round ratios with its 95% interval (src/eval/timing.h).
      estimates.push_back(paired_speedup(base->samples_ms, timed->samples_ms));
      baseline_stats = *base->stats;
      best_stats = *timed->stats;
    }
    const SpeedupEstimate interval = combine(estimates);
    if (attempt.sizes.empty()) attempt.timing_size = interval;
    SizeResult figures;
    figures.name = size.name;
    figures.baseline_ms = baseline_stats.median_ms;
    figures.best_ms = best_stats.median_ms;
    figures.speedup = interval.median;
    figures.speedup_ci_low = interval.ci_low;
    figures.speedup_ci_high = interval.ci_high;
    figures.sessions = sessions;
    figures.spread = best_stats.spread;
    attempt.sizes.push_back(std::move(figures));
    log::info("  size {:<12} baseline {:.4f} ms  best {:.4f} ms  {:.2f}x [{:.2f}, {:.2f}]", size.name,
              baseline_stats.median_ms, best_stats.median_ms, interval.median, interval.ci_low, interval.ci_high);
  }
  // Results after many launches must still be right: a kernel that counts its launches and
  // stops working after the first few passes every check made before timing.
  const EvalResult after = evaluator.check(variant, compiled);
  if (after.status != CandidateStatus::Correct) attempt.failure = "correct before timing, wrong after it: " + after.message;
  return attempt;
}

// The candidate's stored result, to be rewritten with the final verification's verdict.
CandidateResult stored_result(const CandidateRecord& candidate) {
  CandidateResult result;
  result.status = candidate.status;
  result.status_message = candidate.status_message;
  result.compile_log = candidate.compile_log;
  result.compile_stats = candidate.compile_stats;
  result.metrics = candidate.metrics;
  result.profile = candidate.profile;
  result.analysis = candidate.analysis;
  return result;
}

void mark_incorrect(RunStore& store, const CandidateRecord& candidate, const std::string& reason) {
  CandidateResult result = stored_result(candidate);
  result.status = CandidateStatus::Incorrect;
  result.status_message = "final verification: " + reason;
  result.metrics.final_check = FinalCheck{false, reason};
  store.update_candidate_result(candidate.id, result);
}

// The verified figures replace the search's: every headline reads metrics.speedup and
// metrics.median_ms, and those must be the numbers that the final verification stands behind.
void record_verified(RunStore& store, const CandidateRecord& candidate, const Attempt& attempt) {
  CandidateResult result = stored_result(candidate);  // Correct: only correct candidates are verified
  CandidateMetrics& metrics = result.metrics;
  if (candidate.speedup()) metrics.search_speedup = candidate.speedup();
  if (candidate.median_ms()) metrics.search_median_ms = candidate.median_ms();
  metrics.speedup = attempt.timing_size.median;
  metrics.speedup_ci_low = attempt.timing_size.ci_low;  // above 1: only such a candidate is recorded
  metrics.speedup_ci_high = attempt.timing_size.ci_high;
  metrics.median_ms = attempt.sizes.front().best_ms.value_or(0);
  metrics.sizes = attempt.sizes;
  metrics.final_check = FinalCheck{true, ""};
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
                     {"sizes", sizes_json(attempt.sizes)}};
    store.add_evaluation(record);
    if (!attempt.failure.empty()) {
      log::warn("candidate #{} failed the final verification and is marked incorrect: {}", candidate.id,
                attempt.failure);
      mark_incorrect(store, candidate, attempt.failure);
      ++verdict.rejected;
      continue;
    }
    if (attempt.timing_size.ci_low <= 1.0) {
      log::info("  candidate #{}: {:.2f}x [{:.2f}, {:.2f}] on re-measurement: not measurably faster", candidate.id,
                attempt.timing_size.median, attempt.timing_size.ci_low, attempt.timing_size.ci_high);
      continue;
    }
    record_verified(store, candidate, attempt);
    verdict.best_id = candidate.id;
    verdict.sizes = attempt.sizes;
    verdict.speedup = attempt.timing_size.median;
    verdict.speedup_low = attempt.timing_size.ci_low;
    verdict.speedup_high = attempt.timing_size.ci_high;
    verdict.search_speedup = candidate.speedup().value_or(0);
    break;
  }
  store.set_setting(kVerifiedBestSetting, verdict.best_id ? *verdict.best_id : baseline_id);
  return verdict;
}

}  // namespace kforge::optimize
