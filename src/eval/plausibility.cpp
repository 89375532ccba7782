#include "eval/plausibility.h"

#include <fmt/format.h>

#include <filesystem>

#include "profile/device_characterization.h"
#include "profile/roofline.h"
#include "protocol/worker_protocol.h"
#include "util/files.h"

namespace kforge {

ThroughputRoofs throughput_roofs(const nlohmann::json& device_info, double copy_gbps, const Task& task) {
  ThroughputRoofs roofs;
  roofs.copy_gbps = copy_gbps;
  const DeviceInfo info = device_info_from_json(device_info);
  std::optional<double> measured;
  try {  // the probe's figure, when `kforge profile` measured one; the record is only read
    const auto file = device_cache_file(device_info);
    if (std::filesystem::exists(file)) {
      const auto record = nlohmann::json::parse(read_file(file));
      if (record.contains("measured_fp32_gflops") && record["measured_fp32_gflops"].is_number())
        measured = record["measured_fp32_gflops"].get<double>();
    }
  } catch (const std::exception&) {  // a damaged cache entry: use the estimate
  }
  if (measured && *measured > 0) {
    roofs.peak_gflops = *measured;
    roofs.gflops_source = "measured FP32 peak";
  } else if (const auto estimate = estimated_fp32_gflops(info)) {
    roofs.peak_gflops = *estimate;
    roofs.gflops_source = "estimated FP32 peak";
  }
  bool half = false;
  for (const auto& arg : task.args) half = half || arg.dtype == DType::F16 || arg.dtype == DType::BF16;
  if (half) {
    if (const auto tensor = table_tensor_fp16_gflops(info); tensor && *tensor > roofs.peak_gflops) {
      roofs.peak_gflops = *tensor;
      roofs.gflops_source = "FP16 tensor peak";
    } else if (info.is_gpu && info.backend == "cuda") {
      roofs.peak_gflops = 0;  // tensor cores of an unknown GPU: no honest roof to hold it to
    }
  }
  return roofs;
}

std::optional<std::string> implausible_throughput(double gbps, double gflops, const ThroughputRoofs& roofs) {
  if (roofs.copy_gbps > 0 && gbps > roofs.bandwidth_margin * roofs.copy_gbps)
    return fmt::format("impossible throughput: {:.1f} GB/s is {:.1f}x the device's measured copy bandwidth {:.1f} GB/s "
                       "(limit {:.2f}x)",
                       gbps, gbps / roofs.copy_gbps, roofs.copy_gbps, roofs.bandwidth_margin);
  if (roofs.peak_gflops > 0 && gflops > kFlopMargin * roofs.peak_gflops)
    return fmt::format("impossible throughput: {:.1f} GFLOP/s is {:.1f}x the device's {} {:.1f} GFLOP/s (limit {:.2f}x)",
                       gflops, gflops / roofs.peak_gflops, roofs.gflops_source, roofs.peak_gflops, kFlopMargin);
  return std::nullopt;
}

}  // namespace kforge
