#include <gtest/gtest.h>

#include <cmath>

#include "eval/host_buffer.h"
#include "eval/timing.h"

namespace kforge {
namespace {

TEST(HostBuffer, HalfRoundTripsRepresentableValues) {
  for (float value : {0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.960464477539063e-08f}) {
    EXPECT_EQ(half_to_float(float_to_half(value)), value) << value;
  }
  EXPECT_TRUE(std::isinf(half_to_float(float_to_half(1e6f))));
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(NAN))));
  // 1 + 2^-11 is halfway between two halves: rounds to even (1.0).
  EXPECT_EQ(half_to_float(float_to_half(1.0f + 0.00048828125f)), 1.0f);
}

TEST(HostBuffer, Bf16RoundsToNearest) {
  EXPECT_EQ(bf16_to_float(float_to_bf16(1.0f)), 1.0f);
  EXPECT_NEAR(bf16_to_float(float_to_bf16(3.14159f)), 3.14159f, 0.02f);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(NAN))));
}

TEST(HostBuffer, RandomFillDependsOnSeedAndStaysInRange) {
  HostBuffer a = make_buffer(DType::F32, 1000), b = make_buffer(DType::F32, 1000);
  fill_random(a, "uniform(-1,1)", 1);
  fill_random(b, "uniform(-1,1)", 2);
  EXPECT_NE(checksum(a), checksum(b));
  for (std::int64_t i = 0; i < a.count; ++i) {
    EXPECT_GE(a.get(i), -1.0);
    EXPECT_LE(a.get(i), 1.0);
  }
  HostBuffer ints = make_buffer(DType::I32, 100);
  fill_random(ints, "randint(3, 5)", 7);
  for (std::int64_t i = 0; i < ints.count; ++i) EXPECT_TRUE(ints.get(i) >= 3 && ints.get(i) <= 5);
  EXPECT_THROW(fill_random(a, "gamma(1,2)", 1), TaskError);
}

TEST(HostBuffer, PoisonedElementsFailComparison) {
  HostBuffer expected = make_buffer(DType::F32, 10), actual = make_buffer(DType::F32, 10);
  fill_random(expected, "uniform(-1,1)", 3);
  actual = expected;
  EXPECT_TRUE(compare(actual, expected, {1e-6, 1e-6}).passed);
  poison(actual);
  actual.set(0, expected.get(0));
  const Comparison result = compare(actual, expected, {1e-6, 1e-6});
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.mismatches, 9);
  EXPECT_EQ(result.first_mismatch, 1);
}

TEST(HostBuffer, ToleranceIsRelativeAndAbsolute) {
  HostBuffer expected = make_buffer(DType::F32, 2), actual = make_buffer(DType::F32, 2);
  expected.set(0, 1000.0);
  expected.set(1, 0.0);
  actual.set(0, 1000.05);
  actual.set(1, 1e-6);
  EXPECT_TRUE(compare(actual, expected, {1e-5, 1e-4}).passed);
  EXPECT_FALSE(compare(actual, expected, {1e-5, 1e-6}).passed);
  const Comparison result = compare(actual, expected, {1e-5, 1e-4});
  EXPECT_NEAR(result.max_abs_err, 0.05, 1e-3);
}

TEST(HostBuffer, IntegerPoisonIsNotAPlausibleValue) {
  HostBuffer ints = make_buffer(DType::U32, 4);
  poison(ints);
  EXPECT_EQ(static_cast<std::uint32_t>(ints.get(0)), 0xA5A5A5A5u);
}

TEST(Timing, SummaryOfKnownSamples) {
  const TimingStats stats = summarize({5, 1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(stats.median_ms, 3);
  EXPECT_DOUBLE_EQ(stats.min_ms, 1);
  EXPECT_DOUBLE_EQ(stats.mean_ms, 3);
  EXPECT_EQ(stats.samples, 5);
  EXPECT_NEAR(stats.spread, 2.0 / 3.0, 1e-12);  // IQR 2..4 over median 3
}

TEST(Timing, PrecisionRuleNeedsSamplesAndTightSpread) {
  TimingConfig config;
  config.min_samples = 10;
  config.target_rel_ci = 0.01;
  EXPECT_FALSE(precise_enough(summarize({1, 1, 1}), config));
  EXPECT_TRUE(precise_enough(summarize(std::vector<double>(20, 1.0)), config));
  std::vector<double> noisy;
  for (int i = 0; i < 20; ++i) noisy.push_back(i % 2 ? 1.0 : 2.0);
  EXPECT_FALSE(precise_enough(summarize(noisy), config));
}

}  // namespace
}  // namespace kforge
