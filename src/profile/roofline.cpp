#include "profile/roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace kforge {
namespace {

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// "sm_90" -> 90; 0 when the arch is not an NVIDIA compute capability.
int compute_capability(const std::string& arch) {
  if (arch.rfind("sm_", 0) != 0) return 0;
  try {
    return std::stoi(arch.substr(3));
  } catch (const std::exception&) {
    return 0;
  }
}

// FP32 lanes per SM: 64 on Volta, Turing and A100 (and P100), 128 from GA10x on (and GP10x).
int fp32_lanes_per_sm(int capability) {
  if (capability == 61 || capability == 62 || capability >= 86) return 128;
  return 64;
}

int simd_lanes_fp32(const std::string& device_name) {
  const std::string name = lowercase(device_name);
  if (contains(name, "avx512")) return 16;
  if (contains(name, "avx2") || contains(name, "haswell") || contains(name, "zen") || contains(name, "skylake"))
    return 8;
  return 4;
}

// Assumed when a device reports no clock: a typical all-core server frequency.
constexpr int kDefaultCpuClockMhz = 2500;
constexpr int kCpuFmaPorts = 2;

int cpu_clock_mhz(const DeviceInfo& device) { return device.clock_mhz > 0 ? device.clock_mhz : kDefaultCpuClockMhz; }

void add_analytic_limiters(KernelProfile& profile, const RooflinePoint& point, bool flops_known) {
  if (point.ridge_intensity > 0 && flops_known && point.arithmetic_intensity < point.ridge_intensity)
    profile.limiters.push_back(
        {fmt::format("arithmetic intensity {:.3g} FLOP/B is below the ridge point {:.3g} FLOP/B: at best the "
                     "kernel is memory-bound",
                     point.arithmetic_intensity, point.ridge_intensity),
         "only fewer bytes per result can raise the ceiling: reuse loaded data (tiling in shared/local memory), "
         "narrower types, fusing passes"});
  switch (profile.bound) {
    case Bound::Memory:
      profile.limiters.push_back(
          {fmt::format("moves {:.1f} GB/s = {:.0f}% of the measured copy bandwidth", point.achieved_gbps,
                       100 * point.bandwidth_fraction),
           point.bandwidth_fraction > 0.8
               ? "near the memory roof: further gains need fewer bytes, not faster access"
               : "coalesce accesses and use wide (float4) loads so every transaction is fully used"});
      break;
    case Bound::Compute:
      profile.limiters.push_back(
          {fmt::format("reaches {:.1f} GFLOP/s = {:.0f}% of the FP32 peak", point.achieved_gflops,
                       100 * point.compute_fraction),
           "fewer instructions per result: fused multiply-add, hoisted index math, unrolled loops; tensor cores "
           "for matrix products"});
      break;
    case Bound::Latency:
      profile.limiters.push_back(
          {fmt::format("uses only {:.0f}% of the bandwidth and {:.0f}% of the FP32 peak: neither roof is reached",
                       100 * point.bandwidth_fraction, 100 * point.compute_fraction),
           "expose more parallelism: more blocks or more independent work per thread, fewer barriers and "
           "serial dependences; for tiny sizes launch overhead dominates"});
      break;
    case Bound::Unknown: break;
  }
}
}  // namespace

std::optional<double> estimated_fp32_gflops(const DeviceInfo& device) {
  if (device.compute_units <= 0) return std::nullopt;
  if (device.backend == "cuda") {
    const int capability = compute_capability(device.arch);
    if (capability == 0 || device.clock_mhz <= 0) return std::nullopt;
    return device.compute_units * fp32_lanes_per_sm(capability) * 2.0 * device.clock_mhz / 1000.0;
  }
  if (!device.is_gpu)
    return device.compute_units * simd_lanes_fp32(device.name) * kCpuFmaPorts * 2.0 * cpu_clock_mhz(device) / 1000.0;
  return std::nullopt;  // OpenCL GPUs of unknown make: lanes per unit are not reported
}

std::string fp32_estimate_formula(const DeviceInfo& device) {
  if (device.backend == "cuda")
    return fmt::format("estimate: {} SMs x {} FP32 lanes x 2 x {} MHz", device.compute_units,
                       fp32_lanes_per_sm(compute_capability(device.arch)), device.clock_mhz);
  return fmt::format("estimate: {} cores x {} SIMD lanes x {} FMA ports x 2 x {} MHz", device.compute_units,
                     simd_lanes_fp32(device.name), kCpuFmaPorts, cpu_clock_mhz(device));
}

std::optional<double> table_tensor_fp16_gflops(const DeviceInfo& device) {
  // Dense (no sparsity) FP16/BF16 tensor throughput from NVIDIA's data sheets.
  struct Entry {
    const char* name_part;
    const char* variant;  // must also appear in the name; "" for any
    double gflops;
  };
  static const Entry table[] = {
      {"h100", "pcie", 756e3}, {"h100", "", 989.4e3}, {"h200", "", 989.4e3}, {"gh200", "", 989.4e3},
      {"a100", "", 312e3},     {"l40s", "", 362e3},   {"b200", "", 2250e3},
  };
  const std::string name = lowercase(device.name);
  for (const Entry& entry : table)
    if (contains(name, entry.name_part) && contains(name, entry.variant)) return entry.gflops;
  return std::nullopt;
}

Bound classify_fractions(double bandwidth_fraction, double compute_fraction, double latency_threshold) {
  if (bandwidth_fraction < latency_threshold && compute_fraction < latency_threshold) return Bound::Latency;
  return bandwidth_fraction >= compute_fraction ? Bound::Memory : Bound::Compute;
}

RooflinePoint roofline_position(double bytes, std::optional<double> flops, double seconds, const DevicePeaks& peaks) {
  RooflinePoint point;
  if (seconds <= 0) return point;
  point.achieved_gbps = bytes / seconds / 1e9;
  point.achieved_gflops = flops.value_or(0.0) / seconds / 1e9;
  point.arithmetic_intensity = bytes > 0 ? flops.value_or(0.0) / bytes : 0;
  if (peaks.gbps > 0) point.bandwidth_fraction = point.achieved_gbps / peaks.gbps;
  if (peaks.fp32_gflops > 0) point.compute_fraction = point.achieved_gflops / peaks.fp32_gflops;
  if (peaks.gbps > 0 && peaks.fp32_gflops > 0) {
    point.ridge_intensity = peaks.fp32_gflops / peaks.gbps;
    point.attainable_gflops = std::min(peaks.fp32_gflops, point.arithmetic_intensity * peaks.gbps);
  }
  if (peaks.gbps > 0 || peaks.fp32_gflops > 0)
    point.bound = classify_fractions(point.bandwidth_fraction, point.compute_fraction);
  return point;
}

KernelProfile analytic_profile(double bytes, std::optional<double> flops, double latency_ms, const DevicePeaks& peaks,
                               const std::string& note) {
  KernelProfile profile;
  profile.source = ProfileSource::Analytic;
  profile.source_note = note;
  profile.duration_ms = latency_ms;
  const RooflinePoint point = roofline_position(bytes, flops, latency_ms / 1000.0, peaks);
  profile.bound = point.bound;
  fill_from_roofline(profile, point, peaks);
  profile.metrics["bytes"] = bytes;
  if (flops) profile.metrics["flops"] = *flops;
  if (point.ridge_intensity > 0) profile.metrics["ridge_intensity"] = point.ridge_intensity;
  add_analytic_limiters(profile, point, flops.has_value());
  return profile;
}

void fill_from_roofline(KernelProfile& profile, const RooflinePoint& point, const DevicePeaks& peaks) {
  profile.arithmetic_intensity = point.arithmetic_intensity;
  profile.achieved_gbps = point.achieved_gbps;
  profile.achieved_gflops = point.achieved_gflops;
  profile.peak_gbps = peaks.gbps;
  profile.peak_gflops = peaks.fp32_gflops;
  profile.bandwidth_pct = 100 * point.bandwidth_fraction;
  profile.compute_pct = 100 * point.compute_fraction;
}

}  // namespace kforge
