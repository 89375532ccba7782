// Timing statistics on synthetic samples: the median's distribution-free CI, paired speedups,
// the noise warning, the plausibility roofs and the buffer-set budget.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "eval/plausibility.h"
#include "eval/timing.h"
#include "eval/timed_sets.h"

namespace kforge {
namespace {

TEST(MedianCi, BinomialOrderStatistics) {
  // n = 10: P(B <= 1) = 11/1024 <= 0.025 < P(B <= 2) = 56/1024, so [x(2), x(9)] (1-based).
  EXPECT_EQ(median_ci_indices(10), (std::pair<std::size_t, std::size_t>{1, 8}));
  // n = 6 is the smallest with a 95% interval: [x(1), x(6)], coverage 1 - 2/64.
  EXPECT_EQ(median_ci_indices(6), (std::pair<std::size_t, std::size_t>{0, 5}));
  EXPECT_EQ(median_ci_indices(5), (std::pair<std::size_t, std::size_t>{0, 4}));  // too few: the range
  // n = 100: the textbook interval is [x(40), x(61)].
  EXPECT_EQ(median_ci_indices(100), (std::pair<std::size_t, std::size_t>{39, 60}));
  const auto [low, high] = median_ci_indices(2000);
  EXPECT_EQ(low + high, 1999u);  // symmetric
  EXPECT_NEAR(static_cast<double>(low), 1000 - 1.96 * std::sqrt(2000.0) / 2, 2.0);
}

TEST(MedianCi, CoversTheTrueMedianAboutNinetyFivePercentOfTheTime) {
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> skewed(1.0);  // median ln 2, far from symmetric
  int covered = 0;
  constexpr int kTrials = 2000;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<double> samples(30);
    for (auto& x : samples) x = skewed(rng);
    const TimingStats stats = summarize(samples);
    covered += stats.ci_low_ms <= std::log(2.0) && std::log(2.0) <= stats.ci_high_ms ? 1 : 0;
  }
  EXPECT_GE(covered, static_cast<int>(0.94 * kTrials));
  EXPECT_LE(covered, static_cast<int>(0.995 * kTrials));
}

TEST(PairedSpeedup, RatiosPerRound) {
  const std::vector<double> baseline{2, 4, 6, 8, 10, 12, 14, 16, 18, 20};
  std::vector<double> candidate;
  for (double b : baseline) candidate.push_back(b / 2);
  const SpeedupEstimate speedup = paired_speedup(baseline, candidate);
  EXPECT_EQ(speedup.rounds, 10);
  EXPECT_DOUBLE_EQ(speedup.median, 2);
  EXPECT_DOUBLE_EQ(speedup.ci_low, 2);  // drift across rounds cancels in the pairs
  EXPECT_TRUE(significantly_faster(speedup));
}

TEST(PairedSpeedup, SameSpeedIsNotSignificant) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(1.0, 0.05);
  std::vector<double> baseline, candidate;
  for (int i = 0; i < 200; ++i) {
    baseline.push_back(noise(rng));
    candidate.push_back(noise(rng));
  }
  const SpeedupEstimate speedup = paired_speedup(baseline, candidate);
  EXPECT_LT(speedup.ci_low, 1);
  EXPECT_GT(speedup.ci_high, 1);
  EXPECT_FALSE(significantly_faster(speedup));
  EXPECT_FALSE(significantly_faster(SpeedupEstimate{}));  // no rounds: never faster
}

TEST(NoiseWarning, WideIntervalsAreFlagged) {
  std::vector<double> tight, wide;
  for (int i = 0; i < 50; ++i) {
    tight.push_back(1.0 + 0.001 * (i % 5));
    wide.push_back(i % 2 ? 1.0 : 1.5);
  }
  EXPECT_FALSE(noise_warning(summarize(tight)));
  const auto warning = noise_warning(summarize(wide));
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("too noisy"), std::string::npos) << *warning;
}

TEST(Plausibility, FlagsFiguresAboveTheRoofsWithTheirMargins) {
  ThroughputRoofs roofs;
  roofs.copy_gbps = 100;
  roofs.peak_gflops = 1000;
  roofs.gflops_source = "estimated FP32 peak";
  EXPECT_FALSE(implausible_throughput(120, 1400, roofs));  // inside the margins
  const auto bandwidth = implausible_throughput(130, 0, roofs);
  ASSERT_TRUE(bandwidth.has_value());
  EXPECT_NE(bandwidth->find("130.0 GB/s is 1.3x the device's measured copy bandwidth 100.0 GB/s"), std::string::npos)
      << *bandwidth;
  const auto flops = implausible_throughput(10, 1600, roofs);
  ASSERT_TRUE(flops.has_value());
  EXPECT_NE(flops->find("1600.0 GFLOP/s is 1.6x the device's estimated FP32 peak"), std::string::npos) << *flops;
  EXPECT_FALSE(implausible_throughput(1e9, 1e9, ThroughputRoofs{}));  // unknown roofs: no verdict
}

TEST(TimedSets, FewerSetsForHugeBuffers) {
  constexpr std::int64_t kGiB = std::int64_t{1} << 30;
  EXPECT_EQ(timed_set_count(1 << 20, 2, 80 * kGiB), kMaxTimedSets);       // small: all of them
  EXPECT_EQ(timed_set_count(std::int64_t{200} << 20, 2, 80 * kGiB), 2);   // host budget: 1 + 256/200
  EXPECT_EQ(timed_set_count(8 * kGiB, 2, 80 * kGiB), 1);                  // device budget: 20 GiB / 16
  EXPECT_EQ(timed_set_count(30 * kGiB, 2, 80 * kGiB), 1);                 // never fewer than one
  EXPECT_EQ(poison_byte(DType::F16), 0xFF);
  EXPECT_EQ(poison_byte(DType::I32), 0xA5);
}

}  // namespace
}  // namespace kforge
