// Summary statistics of repeated kernel timings and the rule for when to stop repeating.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "protocol/worker_protocol.h"  // TimingConfig, TimingStats

namespace kforge {

TimingStats summarize(std::vector<double> samples_ms);

// Distribution-free confidence interval of a median: with n sorted samples, [x_(j), x_(n+1-j)]
// for the largest j with P(Binomial(n, 1/2) <= j-1) <= (1 - confidence) / 2; that interval
// holds the true median with probability >= confidence whatever the distribution (samples
// independent). Returns 0-based indices {j-1, n-j}; {0, n-1} when n is too small for the
// confidence (n < 6 at 95%).
std::pair<std::size_t, std::size_t> median_ci_indices(std::size_t n, double confidence = 0.95);

// Speedup of a candidate over a baseline timed in the same interleaved rounds: the ratio
// baseline / candidate of each round (paired, so drift that hits both cancels), its median
// and the median's 95% CI from median_ci_indices.
struct SpeedupEstimate {
  double median = 0;
  double ci_low = 0;
  double ci_high = 0;
  int rounds = 0;
};
SpeedupEstimate paired_speedup(const std::vector<double>& baseline_ms, const std::vector<double>& candidate_ms);
// Faster only when the whole interval is: a win inside the noise is not a win.
inline bool significantly_faster(const SpeedupEstimate& speedup) { return speedup.rounds > 0 && speedup.ci_low > 1; }

// A latency whose 95% CI is wider than this (either side, relative to the median) does not
// mean much: `kforge bench` warns. Returns the warning, or nothing.
inline constexpr double kNoisyRelativeCi = 0.05;
std::optional<std::string> noise_warning(const TimingStats& stats);
// True once there are enough samples and the median is known to within the target.
bool precise_enough(const TimingStats& stats, const TimingConfig& config);

// Anti-cheat: a candidate whose host wall time (launch + full device synchronize) is far
// above its event-timed median did work the events did not see (another stream, deferred
// work). Flags wall > 3x median when the extra time also exceeds 3x the baseline's own launch
// overhead (measured in the same session) plus 50 us. Returns the reason, or nothing; stats
// without a wall time (wall_ms == 0) are never flagged. One flag is not a verdict: the
// evaluator re-measures and rejects only when the re-measurement flags it too, and never
// applies it to the original kernel itself (host load, not hidden work, is what it would see).
std::optional<std::string> timing_mismatch(const TimingStats& candidate, const TimingStats& baseline);

}  // namespace kforge
