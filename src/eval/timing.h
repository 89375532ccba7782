// Summary statistics of repeated kernel timings and the rule for when to stop repeating.
#pragma once

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

}  // namespace kforge
