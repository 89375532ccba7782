// The analytic roofline: where a kernel sits given the bytes and flops the task declares,
// its measured latency and the device's peaks. Works on every backend and needs no
// hardware counters, so it is also the fallback when a profiler is missing or refused.
#pragma once

#include <optional>
#include <string>

#include "backend/backend.h"
#include "profile/profile.h"

namespace kforge {

struct DevicePeaks {
  double gbps = 0;         // memory roof: measured copy bandwidth where available
  double fp32_gflops = 0;  // compute roof
  std::optional<double> tensor_fp16_gflops;  // dense FP16/BF16 tensor throughput, where known
  std::string gbps_source;    // "measured copy", "table"
  std::string gflops_source;  // "measured FMA chain", "estimate: ...", "table"
};

// FP32 peak from what the device reports. GPUs: SMs x FP32 lanes per SM (by architecture) x 2
// (an FMA is two flops) x clock; the H100 SXM gives 132 x 128 x 2 x 1.98 GHz = 66.9 TFLOP/s.
// CPUs (PoCL): cores x SIMD lanes (from the device name: avx512 16, avx2 8, else 4) x 2 FMA
// ports x 2 x clock. Nothing when the device reports too little.
std::optional<double> estimated_fp32_gflops(const DeviceInfo& device);
std::string fp32_estimate_formula(const DeviceInfo& device);
// Dense FP16/BF16 tensor-core peak from a table of known data-centre GPUs (by name).
std::optional<double> table_tensor_fp16_gflops(const DeviceInfo& device);

struct RooflinePoint {
  double arithmetic_intensity = 0;  // FLOP per byte
  double achieved_gbps = 0;
  double achieved_gflops = 0;
  double bandwidth_fraction = 0;    // of peaks.gbps
  double compute_fraction = 0;      // of peaks.fp32_gflops
  double ridge_intensity = 0;       // where the memory roof meets the compute roof
  double attainable_gflops = 0;     // min(compute roof, intensity x memory roof)
  Bound bound = Bound::Unknown;
};

// A kernel is latency-bound when it uses under this fraction of both roofs: neither
// bandwidth nor arithmetic is what it waits for.
inline constexpr double kLatencyBoundFraction = 0.30;

// Memory- or compute-bound by the larger fraction; latency-bound when both are small.
Bound classify_fractions(double bandwidth_fraction, double compute_fraction,
                         double latency_threshold = kLatencyBoundFraction);

// Position of a kernel moving `bytes` and doing `flops` (nullopt: unknown) in `seconds`.
RooflinePoint roofline_position(double bytes, std::optional<double> flops, double seconds,
                                const DevicePeaks& peaks);
// Copies a roofline position and the device peaks into the profile's throughput fields.
void fill_from_roofline(KernelProfile& profile, const RooflinePoint& point, const DevicePeaks& peaks);

// A complete profile from the roofline alone; `note` says why no counters were used.
KernelProfile analytic_profile(double bytes, std::optional<double> flops, double latency_ms,
                               const DevicePeaks& peaks, const std::string& note);

}  // namespace kforge
