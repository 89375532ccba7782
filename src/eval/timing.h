// Summary statistics of repeated kernel timings and the rule for when to stop repeating.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "eval/result.h"

namespace kforge {

struct TimingConfig {
  double warmup_ms = 20;       // run the kernel for at least this long before measuring
  int min_samples = 10;
  int max_samples = 2000;
  double max_seconds = 2.0;    // cap per timing request (all variants together)
  double target_rel_ci = 0.01; // stop when the median's ~95% CI half-width is under 1%
  bool flush_cache = true;     // evict L2 before every timed launch
};

TimingStats summarize(std::vector<double> samples_ms);
// True once there are enough samples and the median is known to within the target.
bool precise_enough(const TimingStats& stats, const TimingConfig& config);

// Anti-cheat: a candidate whose host wall time (launch + full device synchronize) is far
// above its event-timed median did work the events did not see (another stream, deferred
// work). Flags wall > 3x median when the extra time also exceeds 3x the baseline's own launch
// overhead (measured in the same session) plus 50 us. Returns the reason, or nothing; stats
// without a wall time (wall_ms == 0) are never flagged.
std::optional<std::string> timing_mismatch(const TimingStats& candidate, const TimingStats& baseline);

}  // namespace kforge
