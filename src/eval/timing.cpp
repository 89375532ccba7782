#include "eval/timing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace kforge {
namespace {
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const auto upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(lower);
  return sorted[lower] * (1 - fraction) + sorted[upper] * fraction;
}
}  // namespace

TimingStats summarize(std::vector<double> samples_ms) {
  TimingStats stats;
  if (samples_ms.empty()) return stats;
  std::sort(samples_ms.begin(), samples_ms.end());
  const auto n = static_cast<double>(samples_ms.size());
  stats.samples = static_cast<int>(samples_ms.size());
  stats.median_ms = quantile(samples_ms, 0.5);
  stats.min_ms = samples_ms.front();
  stats.mean_ms = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / n;
  const double iqr = quantile(samples_ms, 0.75) - quantile(samples_ms, 0.25);
  if (stats.median_ms > 0) {
    stats.spread = iqr / stats.median_ms;
    // Robust sigma from the IQR; the median's standard error is ~1.253 sigma / sqrt(n).
    const double sigma = iqr / 1.349;
    stats.rel_ci = 1.96 * 1.253 * sigma / std::sqrt(n) / stats.median_ms;
  }
  return stats;
}

bool precise_enough(const TimingStats& stats, const TimingConfig& config) {
  return stats.samples >= config.min_samples && stats.rel_ci <= config.target_rel_ci;
}

std::optional<std::string> timing_mismatch(const TimingStats& candidate, const TimingStats& baseline) {
  if (candidate.wall_ms <= 0 || candidate.median_ms <= 0) return std::nullopt;
  const double extra = candidate.wall_ms - candidate.median_ms;
  const double baseline_overhead = baseline.wall_ms > 0 ? std::max(0.0, baseline.wall_ms - baseline.median_ms) : 0.0;
  if (candidate.wall_ms <= 3 * candidate.median_ms || extra <= 3 * baseline_overhead + 0.05) return std::nullopt;
  char text[256];
  std::snprintf(text, sizeof text,
                "timing mismatch: work outside the timed stream (host wall time %.3f ms per launch with a full "
                "device sync vs %.3f ms between events; the baseline's overhead is %.3f ms)",
                candidate.wall_ms, candidate.median_ms, baseline_overhead);
  return std::string(text);
}

}  // namespace kforge
