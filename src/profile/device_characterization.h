// What kforge knows about a device's limits, measured once and cached per device in
// cache_dir()/devices/<hash of the worker's device info>.json - the file in which
// Evaluator::device() already keeps the measured copy bandwidth; the keys added here sit
// beside its "device" and "copy_gbps", so either writer keeps the other's data.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "backend/backend.h"
#include "profile/roofline.h"

namespace kforge {

struct DeviceCharacterization {
  DeviceInfo info;
  double copy_gbps = 0;                         // measured device-to-device copy bandwidth
  std::optional<double> measured_fp32_gflops;   // FMA-chain probe
  std::optional<double> estimated_fp32_gflops;  // from SMs/cores, lanes and clock
  std::string estimate_formula;
  std::optional<double> tensor_fp16_gflops;     // table of known GPUs
  std::string probe_error;                      // why the probe gave no number, if it did not

  // The measured FP32 peak where there is one, else the estimate.
  double fp32_gflops() const;
  std::string fp32_source() const;
  DevicePeaks peaks() const;
};

std::filesystem::path device_cache_file(const nlohmann::json& info);

// The FP32 probe as an ordinary kforge task (manifest + kernel) for the backend, written
// under `dir`: each thread runs independent FMA chains (8 scalar ones in CUDA, 4 float16
// ones in OpenCL for CPU SIMD), so the issue rate, not latency, limits it. Sized for a GPU
// or, smaller, for a CPU OpenCL device.
struct FmaProbeTask {
  std::filesystem::path manifest;
  double flops = 0;  // per launch
};
FmaProbeTask write_fma_probe_task(Language language, bool is_gpu, const std::filesystem::path& dir);

// Times the probe task's kernel through the normal evaluator/worker path; returns the best
// launch time in milliseconds, or nullopt with `error` set.
using ProbeTimer = std::function<std::optional<double>(const std::filesystem::path& manifest, std::string& error)>;

// Reads the cached record; when it has no FP32 figure yet and `time_probe` is given, runs
// the probe once and stores the result (a failed probe is stored too, so it is not retried
// on every run; delete the file to measure again).
DeviceCharacterization characterize_device(const nlohmann::json& info, double copy_gbps,
                                           const ProbeTimer& time_probe);

nlohmann::json to_json(const DeviceCharacterization& device);

}  // namespace kforge
