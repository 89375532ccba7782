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
  const auto [low, high] = median_ci_indices(samples_ms.size());
  stats.ci_low_ms = samples_ms[low];
  stats.ci_high_ms = samples_ms[high];
  if (stats.median_ms > 0) {
    stats.spread = iqr / stats.median_ms;
    // Robust sigma from the IQR; the median's standard error is ~1.253 sigma / sqrt(n).
    const double sigma = iqr / 1.349;
    stats.rel_ci = 1.96 * 1.253 * sigma / std::sqrt(n) / stats.median_ms;
  }
  return stats;
}

std::pair<std::size_t, std::size_t> median_ci_indices(std::size_t n, double confidence) {
  if (n == 0) return {0, 0};
  const double tail = (1 - confidence) / 2;
  // P(B <= k) for B ~ Binomial(n, 1/2), summed in log space so n in the thousands is fine.
  const double log_half_n = static_cast<double>(n) * std::log(0.5);
  const double log_n_fact = std::lgamma(static_cast<double>(n) + 1);
  double cdf = 0;
  std::size_t j = 0;  // 1-based order statistic of the lower bound; 0: none qualifies
  for (std::size_t k = 0; 2 * k < n; ++k) {
    const double kd = static_cast<double>(k);
    cdf += std::exp(log_n_fact - std::lgamma(kd + 1) - std::lgamma(static_cast<double>(n) - kd + 1) + log_half_n);
    if (cdf > tail) break;
    j = k + 1;  // P(B <= j-1) = P(B <= k) <= tail
  }
  if (j == 0) return {0, n - 1};
  return {j - 1, n - j};
}

SpeedupEstimate paired_speedup(const std::vector<double>& baseline_ms, const std::vector<double>& candidate_ms) {
  std::vector<double> ratios;
  const std::size_t rounds = std::min(baseline_ms.size(), candidate_ms.size());
  for (std::size_t i = 0; i < rounds; ++i)
    if (baseline_ms[i] > 0 && candidate_ms[i] > 0) ratios.push_back(baseline_ms[i] / candidate_ms[i]);
  SpeedupEstimate estimate;
  if (ratios.empty()) return estimate;
  std::sort(ratios.begin(), ratios.end());
  const auto [low, high] = median_ci_indices(ratios.size());
  estimate.median = quantile(ratios, 0.5);
  // Too few rounds for a 95% interval (n < 6): no lower bound, so never "significantly faster".
  estimate.ci_low = ratios.size() >= 6 ? ratios[low] : 0.0;
  estimate.ci_high = ratios[high];
  estimate.rounds = static_cast<int>(ratios.size());
  return estimate;
}

std::optional<std::string> noise_warning(const TimingStats& stats) {
  if (stats.median_ms <= 0 || stats.samples == 0) return std::nullopt;
  const double below = (stats.median_ms - stats.ci_low_ms) / stats.median_ms;
  const double above = (stats.ci_high_ms - stats.median_ms) / stats.median_ms;
  if (std::max(below, above) <= kNoisyRelativeCi) return std::nullopt;
  char text[256];
  std::snprintf(text, sizeof text,
                "the 95%% CI of the median is -%.1f%%/+%.1f%% (interquartile spread %.0f%% of the median, %d "
                "samples): too noisy for the figure to mean much; rerun on an idle machine or time longer",
                100 * below, 100 * above, 100 * stats.spread, stats.samples);
  return std::string(text);
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
