#include "profile/device_characterization.h"

#include "protocol/worker_protocol.h"  // device_info_from_json

#include <fmt/format.h>

#include "util/files.h"
#include "util/hash.h"

namespace kforge {
namespace {
using nlohmann::json;

// FMA lanes per thread and iteration: 8 scalar chains (CUDA), 4 float16 chains (OpenCL).
constexpr int kCudaLanes = 8;
constexpr int kOpenClLanes = 64;

struct ProbeSize {
  std::int64_t threads;
  std::int64_t iterations;
};
// GPU: 69 GFLOP (CUDA), about a millisecond on an H100. CPU: 0.27 GFLOP, milliseconds on a few cores.
constexpr ProbeSize kGpuProbe{1 << 20, 4096};
constexpr ProbeSize kCpuProbe{1 << 14, 128};

const char* kCudaProbe = R"(// kforge FP32 peak probe: 8 independent FMA chains per thread.
extern "C" __global__ void fma_peak(float* out, int iters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a0 = i * 1e-9f, a1 = a0 + 0.1f, a2 = a0 + 0.2f, a3 = a0 + 0.3f;
  float a4 = a0 + 0.4f, a5 = a0 + 0.5f, a6 = a0 + 0.6f, a7 = a0 + 0.7f;
  const float m = 0.9999f, c = 1e-4f;
  for (int k = 0; k < iters; ++k) {
    a0 = fmaf(a0, m, c); a1 = fmaf(a1, m, c); a2 = fmaf(a2, m, c); a3 = fmaf(a3, m, c);
    a4 = fmaf(a4, m, c); a5 = fmaf(a5, m, c); a6 = fmaf(a6, m, c); a7 = fmaf(a7, m, c);
  }
  out[i] = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
}
)";

// float16 vectors: CPU OpenCL implementations (PoCL) do not vectorise this loop across
// work-items, so the SIMD width must be explicit; GPUs split the vectors into scalar lanes.
// The lanes start different so no compiler can fold them into one scalar chain.
const char* kOpenClProbe = R"(// kforge FP32 peak probe: 4 independent float16 multiply-add chains per work-item.
__kernel void fma_peak(__global float* out, int iters) {
  const int i = get_global_id(0);
  const float16 lanes = (float16)(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f,
                                  8.0f, 9.0f, 10.0f, 11.0f, 12.0f, 13.0f, 14.0f, 15.0f) * 1e-3f;
  float16 a0 = (float16)(i * 1e-9f) + lanes, a1 = a0 + 0.1f, a2 = a0 + 0.2f, a3 = a0 + 0.3f;
  const float16 m = (float16)(0.9999f), c = (float16)(1e-4f);
  for (int k = 0; k < iters; ++k) {
    a0 = mad(a0, m, c); a1 = mad(a1, m, c); a2 = mad(a2, m, c); a3 = mad(a3, m, c);
  }
  const float16 s = (a0 + a1) + (a2 + a3);
  const float8 h = s.lo + s.hi;
  const float4 q = h.lo + h.hi;
  out[i] = (q.x + q.y) + (q.z + q.w);
}
)";

std::string probe_manifest(const std::string& language, const std::string& source, ProbeSize size, int lanes) {
  return fmt::format(R"([task]
name        = "fma_peak"
language    = "{}"
source      = "{}"
kernel      = "fma_peak"
description = "FP32 peak probe of kforge's device characterisation"

[[args]]
name  = "out"
dtype = "f32"
shape = ["n"]
role  = "output"
[[args]]
name  = "iters"
dtype = "i32"
role  = "scalar"
value = "iters"

[launch]
block = ["256", "1", "1"]
grid  = ["n / 256", "1", "1"]

[[sizes]]
name  = "probe"
n     = {}
iters = {}

[metrics]
bytes = "4 * n"
flops = "{} * n * iters"
)",
                     language, source, size.threads, size.iterations, 2 * lanes);
}

std::optional<double> number(const json& record, const char* key) {
  if (!record.contains(key) || !record[key].is_number()) return std::nullopt;
  return record[key].get<double>();
}

void apply_estimates(DeviceCharacterization& device) {
  device.estimated_fp32_gflops = estimated_fp32_gflops(device.info);
  if (device.estimated_fp32_gflops) device.estimate_formula = fp32_estimate_formula(device.info);
  device.tensor_fp16_gflops = table_tensor_fp16_gflops(device.info);
}

void run_probe(DeviceCharacterization& device, const ProbeTimer& time_probe) {
  const Language language = device.info.backend == "cuda" ? Language::Cuda : Language::OpenCL;
  const auto dir = cache_dir() / "probes" / fmt::format("fma-{}-{}", device.info.backend, device.info.is_gpu ? "gpu" : "cpu");
  const FmaProbeTask probe = write_fma_probe_task(language, device.info.is_gpu, dir);
  std::string error;
  const std::optional<double> ms = time_probe(probe.manifest, error);
  if (ms && *ms > 0)
    device.measured_fp32_gflops = probe.flops / (*ms / 1000) / 1e9;
  else
    device.probe_error = error.empty() ? "the FMA probe produced no timing" : error;
}
}  // namespace

double DeviceCharacterization::fp32_gflops() const {
  return measured_fp32_gflops.value_or(estimated_fp32_gflops.value_or(0.0));
}

std::string DeviceCharacterization::fp32_source() const {
  if (measured_fp32_gflops) return "measured FMA chain";
  if (estimated_fp32_gflops) return estimate_formula;
  return "unknown";
}

DevicePeaks DeviceCharacterization::peaks() const {
  DevicePeaks peaks;
  peaks.gbps = copy_gbps;
  peaks.gbps_source = "measured copy";
  peaks.fp32_gflops = fp32_gflops();
  peaks.gflops_source = fp32_source();
  peaks.tensor_fp16_gflops = tensor_fp16_gflops;
  return peaks;
}

std::filesystem::path device_cache_file(const json& info) {
  // Same name as Evaluator::device() uses, so both read and extend one record.
  return cache_dir() / "devices" / (content_hash(info.dump()) + ".json");
}

FmaProbeTask write_fma_probe_task(Language language, bool is_gpu, const std::filesystem::path& dir) {
  const bool cuda = language == Language::Cuda;
  const std::string source = cuda ? "fma_peak.cu" : "fma_peak.cl";
  const int lanes = cuda ? kCudaLanes : kOpenClLanes;
  const ProbeSize size = is_gpu ? kGpuProbe : kCpuProbe;
  write_file(dir / source, cuda ? kCudaProbe : kOpenClProbe);
  write_file(dir / "kforge.toml", probe_manifest(to_string(language), source, size, lanes));
  return {dir / "kforge.toml", 2.0 * lanes * static_cast<double>(size.threads) * static_cast<double>(size.iterations)};
}

DeviceCharacterization characterize_device(const json& info, double copy_gbps, const ProbeTimer& time_probe) {
  DeviceCharacterization device;
  device.info = device_info_from_json(info);
  device.copy_gbps = copy_gbps;
  apply_estimates(device);
  const auto file = device_cache_file(info);
  json record = json::object();
  if (std::filesystem::exists(file)) {
    try {
      record = json::parse(read_file(file));
    } catch (const std::exception&) {
      record = json::object();  // a damaged cache entry is rebuilt
    }
  }
  if (device.copy_gbps <= 0) device.copy_gbps = number(record, "copy_gbps").value_or(0);
  const bool probed = record.contains("fp32_probe");
  if (probed) {
    device.measured_fp32_gflops = number(record, "measured_fp32_gflops");
    device.probe_error = record["fp32_probe"].value("error", "");
  } else if (time_probe) {
    run_probe(device, time_probe);
  }
  if (!probed) {
    record["device"] = info;
    if (device.copy_gbps > 0) record["copy_gbps"] = device.copy_gbps;
    const json characterization = to_json(device);
    for (const auto& [key, value] : characterization.items()) record[key] = value;
    if (time_probe) record["fp32_probe"] = {{"error", device.probe_error}};
    write_file(file, record.dump(2));
  }
  return device;
}

json to_json(const DeviceCharacterization& device) {
  json out = {{"name", device.info.name},
              {"arch", device.info.arch},
              {"compute_units", device.info.compute_units},
              {"l2_bytes", device.info.l2_bytes},
              {"clock_mhz", device.info.clock_mhz},
              {"copy_gbps", device.copy_gbps},
              {"fp32_gflops", device.fp32_gflops()},
              {"fp32_source", device.fp32_source()}};
  if (device.measured_fp32_gflops) out["measured_fp32_gflops"] = *device.measured_fp32_gflops;
  if (device.estimated_fp32_gflops) out["estimated_fp32_gflops"] = *device.estimated_fp32_gflops;
  if (device.tensor_fp16_gflops) out["tensor_fp16_gflops"] = *device.tensor_fp16_gflops;
  if (!device.probe_error.empty()) out["probe_error"] = device.probe_error;
  return out;
}

}  // namespace kforge
