// Roofline arithmetic, classification, peak estimates and the profile's JSON form.
#include <gtest/gtest.h>

#include "profile/profile.h"
#include "profile/roofline.h"

namespace kforge {
namespace {

DeviceInfo h100() {
  DeviceInfo device;
  device.backend = "cuda";
  device.name = "NVIDIA H100 80GB HBM3";
  device.arch = "sm_90";
  device.compute_units = 132;
  device.clock_mhz = 1980;
  device.is_gpu = true;
  return device;
}

TEST(Roofline, H100Fp32EstimateMatchesTheDataSheet) {
  // 132 SMs x 128 lanes x 2 flops x 1.98 GHz
  EXPECT_NEAR(*estimated_fp32_gflops(h100()), 66908.16, 1e-6);
  EXPECT_NE(fp32_estimate_formula(h100()).find("132 SMs x 128 FP32 lanes"), std::string::npos);
  EXPECT_NEAR(*table_tensor_fp16_gflops(h100()), 989.4e3, 1e-6);
  DeviceInfo pcie = h100();
  pcie.name = "NVIDIA H100 PCIe";
  EXPECT_NEAR(*table_tensor_fp16_gflops(pcie), 756e3, 1e-6);
  DeviceInfo a100 = h100();
  a100.name = "NVIDIA A100-SXM4-80GB";
  a100.arch = "sm_80";
  a100.compute_units = 108;
  a100.clock_mhz = 1410;
  EXPECT_NEAR(*estimated_fp32_gflops(a100), 108 * 64 * 2 * 1.41, 1e-6);
}

TEST(Roofline, CpuEstimateFromSimdWidth) {
  DeviceInfo cpu;
  cpu.backend = "opencl";
  cpu.name = "pthread-skylake-avx512-AMD EPYC";
  cpu.compute_units = 2;
  cpu.clock_mhz = 3000;
  EXPECT_NEAR(*estimated_fp32_gflops(cpu), 2 * 16 * 2 * 2 * 3.0, 1e-9);
  cpu.name = "pthread-haswell";
  EXPECT_NEAR(*estimated_fp32_gflops(cpu), 2 * 8 * 2 * 2 * 3.0, 1e-9);
  cpu.clock_mhz = 0;  // unreported: a typical server clock is assumed
  EXPECT_GT(*estimated_fp32_gflops(cpu), 0);
  DeviceInfo unknown_gpu;
  unknown_gpu.backend = "opencl";
  unknown_gpu.is_gpu = true;
  unknown_gpu.compute_units = 40;
  EXPECT_FALSE(estimated_fp32_gflops(unknown_gpu));
  EXPECT_FALSE(estimated_fp32_gflops(DeviceInfo{}));
}

TEST(Roofline, Classification) {
  EXPECT_EQ(classify_fractions(0.9, 0.01), Bound::Memory);
  EXPECT_EQ(classify_fractions(0.2, 0.7), Bound::Compute);
  EXPECT_EQ(classify_fractions(0.29, 0.29), Bound::Latency);
  EXPECT_EQ(classify_fractions(0.30, 0.0), Bound::Memory);
  EXPECT_EQ(classify_fractions(0.5, 0.5, 0.6), Bound::Latency);
}

TEST(Roofline, PositionOfAStreamingKernel) {
  const DevicePeaks peaks{3000, 60000, std::nullopt, "measured copy", "table"};
  // 48 MiB moved and 4 Mi flops in 20 us: 2516.6 GB/s, 0.0833 FLOP/B
  const double bytes = 50331648, flop_count = 4194304;
  const RooflinePoint point = roofline_position(bytes, flop_count, 20e-6, peaks);
  EXPECT_NEAR(point.achieved_gbps, bytes / 20e-6 / 1e9, 1e-9);
  EXPECT_NEAR(point.achieved_gflops, flop_count / 20e-6 / 1e9, 1e-9);
  EXPECT_NEAR(point.arithmetic_intensity, 1.0 / 12, 1e-12);
  EXPECT_NEAR(point.ridge_intensity, 20, 1e-12);
  EXPECT_NEAR(point.attainable_gflops, 3000.0 / 12, 1e-9);
  EXPECT_NEAR(point.bandwidth_fraction, point.achieved_gbps / 3000, 1e-12);
  EXPECT_EQ(point.bound, Bound::Memory);
}

TEST(Roofline, DegenerateInputsGiveAnEmptyPosition) {
  const DevicePeaks peaks{3000, 60000, std::nullopt, "", ""};
  EXPECT_EQ(roofline_position(1000, 10.0, 0, peaks).bound, Bound::Unknown);
  EXPECT_EQ(roofline_position(0, std::nullopt, 1e-3, peaks).arithmetic_intensity, 0);
  EXPECT_EQ(roofline_position(1000, 10.0, 1e-3, DevicePeaks{}).bound, Bound::Unknown);
}

TEST(Roofline, AnalyticProfileSaysWhyAndWhatToTry) {
  const DevicePeaks peaks{20, 400, std::nullopt, "measured copy", "estimate"};
  // 12 MB in 1 ms = 12 GB/s = 60% of 20 GB/s: memory-bound, below the ridge
  const KernelProfile memory = analytic_profile(12e6, 1e6, 1.0, peaks, "no counters");
  EXPECT_EQ(memory.bound, Bound::Memory);
  EXPECT_EQ(memory.source, ProfileSource::Analytic);
  EXPECT_EQ(memory.source_note, "no counters");
  EXPECT_NEAR(memory.bandwidth_pct, 60, 1e-9);
  ASSERT_EQ(memory.limiters.size(), 2u);
  EXPECT_NE(memory.limiters[0].finding.find("below the ridge point"), std::string::npos);
  EXPECT_NE(memory.limiters[1].finding.find("60% of the measured copy bandwidth"), std::string::npos);

  const KernelProfile latency = analytic_profile(1e3, std::nullopt, 1.0, peaks, "");
  EXPECT_EQ(latency.bound, Bound::Latency);
  ASSERT_EQ(latency.limiters.size(), 1u);  // no ridge sentence without flops
  EXPECT_NE(latency.limiters[0].suggestion.find("parallelism"), std::string::npos);

  const KernelProfile compute = analytic_profile(1e3, 300e6, 1.0, peaks, "");  // 300 GFLOP/s of 400
  EXPECT_EQ(compute.bound, Bound::Compute);
}

TEST(ProfileJson, KeysTheReportReadsAndRoundTrip) {
  KernelProfile profile = analytic_profile(12e6, 1e6, 1.0, {20, 400, std::nullopt, "", ""}, "why");
  profile.sm_throughput_pct = 14.2;
  profile.achieved_occupancy_pct = 84.1;
  profile.theoretical_occupancy_pct = 100;
  profile.registers_per_thread = 16;
  const nlohmann::json json = to_json(profile);
  for (const char* key : {"bound", "arithmetic_intensity", "achieved_gflops", "achieved_gbps", "peak_gflops",
                          "peak_gbps", "source", "limiters", "metrics", "occupancy", "sm_throughput_pct"})
    EXPECT_TRUE(json.contains(key)) << key;
  EXPECT_EQ(json["bound"], "memory");
  EXPECT_EQ(json["source"], "analytic");
  EXPECT_TRUE(json["limiters"][0].is_string());
  EXPECT_FALSE(json.contains("dram_throughput_pct"));  // absent, not zero

  const KernelProfile back = profile_from_json(nlohmann::json::parse(json.dump()));
  EXPECT_EQ(back.bound, Bound::Memory);
  EXPECT_DOUBLE_EQ(back.achieved_gbps, profile.achieved_gbps);
  EXPECT_EQ(back.registers_per_thread, 16);
  EXPECT_DOUBLE_EQ(*back.theoretical_occupancy_pct, 100);
  ASSERT_EQ(back.limiters.size(), profile.limiters.size());
  EXPECT_EQ(back.limiters[1].suggestion, profile.limiters[1].suggestion);
  EXPECT_EQ(back.metrics.at("bytes"), 12e6);

  const KernelProfile junk = profile_from_json(nlohmann::json::parse(R"({"bound": 3, "limiters": [1, "x"], "metrics": {"a": "b"}})"));
  EXPECT_EQ(junk.bound, Bound::Unknown);
  ASSERT_EQ(junk.limiters.size(), 1u);
  EXPECT_TRUE(junk.metrics.empty());
  EXPECT_EQ(profile_from_json(nlohmann::json()).bound, Bound::Unknown);
}

}  // namespace
}  // namespace kforge
