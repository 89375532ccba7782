// Physically impossible throughput: a kernel that moves its bytes faster than the device can
// copy memory, or does its FLOPs faster than the device's peak, did not do the work it
// claims (it found an earlier result, or skipped work the verification did not see). The
// evaluator re-times such a candidate with verified outputs once more and rejects it when
// the figure persists; `kforge bench` never prints one as a success.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "task/task.h"

namespace kforge {

// Margins over the roofs: measurement error of the copy bandwidth (and caches a flush may
// not fully evict), and of a peak that may be an estimate from reported clocks.
inline constexpr double kBandwidthMargin = 1.25;
inline constexpr double kFlopMargin = 1.5;
// Buffers smaller than this many times the last-level cache may be served from it even after
// the flush and legitimately beat the DRAM copy bandwidth: their margin is the wider one.
inline constexpr double kCacheResidentFactor = 4;
inline constexpr double kCacheResidentBandwidthMargin = 10;

struct ThroughputRoofs {
  double copy_gbps = 0;    // measured device-to-device copy bandwidth (0: unknown)
  double bandwidth_margin = kBandwidthMargin;
  double peak_gflops = 0;  // FP32 peak (FP16 tensor peak when the task has f16/bf16 data); 0: unknown
  std::string gflops_source;
};

// What the evaluator knows without running anything: the measured copy bandwidth, the FP32
// peak measured by `kforge profile`'s probe when the device cache has it (else estimated from
// the reported units and clock), the tensor peak from the table for f16/bf16 tasks.
ThroughputRoofs throughput_roofs(const nlohmann::json& device_info, double copy_gbps, const Task& task);

// The reason, with the figures, when `gbps` or `gflops` exceeds its roof times the margin.
std::optional<std::string> implausible_throughput(double gbps, double gflops, const ThroughputRoofs& roofs);

}  // namespace kforge
