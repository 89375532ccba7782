#include "backend/cuda/cuda_backend.h"

#if KFORGE_HAVE_CUDA_HEADERS
#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "backend/compile_cache.h"
#include "backend/cuda/cuda_api.h"
#include "backend/cuda/cuda_internal.h"
#include "backend/cuda/ptxas_log.h"
#include "util/hash.h"



namespace kforge {
namespace {

// Without a device (CI, this laptop) the target comes from KFORGE_CUDA_ARCH ("sm_80" or
// "80"), defaulting to the H100's sm_90.
std::string arch_without_device() {
  const char* env = std::getenv("KFORGE_CUDA_ARCH");
  if (!env || !*env) return "sm_90";
  const std::string value = env;
  return value.rfind("sm_", 0) == 0 ? value : "sm_" + value;
}

std::string target_arch(int device_index) {
  const cuda::Driver& loaded = cuda::driver();
  if (loaded.usable && device_index >= 0 && device_index < loaded.device_count)
    return cuda::device_arch(device_index);
  return arch_without_device();
}

std::vector<std::string> nvrtc_options(const CompileRequest& request, const std::string& arch) {
  std::vector<std::string> options{"--gpu-architecture=" + arch, "-default-device", "-std=c++17",
                                   "--ptxas-options=-v"};  // resource usage into the log
  if (auto toolkit = cuda::toolkit_include_dir(); !toolkit.empty())
    options.push_back("-I" + toolkit);  // cuda_fp16.h, cuda_bf16.h, ...
  for (const auto& dir : request.include_dirs) options.push_back("-I" + dir);
  for (const auto& [name, value] : request.defines) options.push_back("-D" + name + "=" + value);
  for (const auto& option : request.options) options.push_back(option);
  return options;
}

std::string program_log(nvrtcProgram program) {
  const cuda::Nvrtc& api = cuda::nvrtc();
  std::size_t size = 0;
  if (api.nvrtcGetProgramLogSize_(program, &size) != NVRTC_SUCCESS || size <= 1) return "";
  std::string log(size, '\0');
  if (api.nvrtcGetProgramLog_(program, log.data()) != NVRTC_SUCCESS) return "";
  log.resize(size - 1);  // drop the terminating NUL
  return log;
}

// Destroys the NVRTC program on every path out of the compile.
struct ProgramGuard {
  nvrtcProgram program = nullptr;
  ~ProgramGuard() {
    if (program) cuda::nvrtc().nvrtcDestroyProgram_(&program);
  }
};

void append_line(std::string& log, const std::string& line) {
  if (!log.empty() && log.back() != '\n') log += '\n';
  log += line + '\n';
}

// Copies the CUBIN and lowered kernel name out of a successfully compiled program.
void collect_outputs(nvrtcProgram program, const CompileRequest& request, CompileResult& result) {
  const cuda::Nvrtc& api = cuda::nvrtc();
  if (!request.kernel.empty()) {
    const char* lowered = nullptr;
    const nvrtcResult status = api.nvrtcGetLoweredName_(program, request.kernel.c_str(), &lowered);
    if (status != NVRTC_SUCCESS || !lowered) {
      append_line(result.log, "kforge: kernel '" + request.kernel + "' not found: " +
                                  cuda::error_text(status));
      return;
    }
    result.lowered_name = lowered;
  }
  std::size_t size = 0;
  nvrtcResult status = api.nvrtcGetCUBINSize_(program, &size);
  if (status == NVRTC_SUCCESS && size > 0) {
    result.binary.assign(size, '\0');
    status = api.nvrtcGetCUBIN_(program, result.binary.data());
  }
  if (status != NVRTC_SUCCESS || size == 0) {
    append_line(result.log, "kforge: nvrtcGetCUBIN failed: " + cuda::error_text(status));
    result.binary.clear();
    return;
  }
  result.binary_format = "cubin";
  result.ok = true;
}

// Resource stats come only from ptxas's log: the orchestrator never loads generated code
// (not even cuModuleLoadData, which would place it in our GPU context).
//
// NVRTC (seen with 13.0) serves a repeat of an identical compile from its in-process cache
// with an empty log, so the stats of each CUBIN are remembered from the compile that had them.
cuda::PtxasStats ptxas_stats(const CompileResult& result) {
  static std::mutex mutex;
  static std::map<std::string, cuda::PtxasStats> by_cubin;
  cuda::PtxasStats stats = cuda::parse_ptxas_log(result.log, result.lowered_name);
  const std::string key = content_hash(std::vector<std::string>{result.binary, result.lowered_name});
  std::lock_guard lock(mutex);
  if (stats.registers >= 0) {
    by_cubin[key] = stats;
  } else if (const auto known = by_cubin.find(key); known != by_cubin.end()) {
    stats = known->second;
  }
  return stats;
}

void apply_ptxas_stats(CompileResult& result) {
  const auto stats = ptxas_stats(result);
  result.registers = stats.registers;
  result.shared_bytes = stats.shared_bytes;
  result.local_bytes = stats.local_bytes;
  result.spill_bytes = stats.spill_bytes;
  // The per-kernel thread limit from the register file alone (64K registers per block,
  // allocated per warp in units of 256, at most 1024 threads); __launch_bounds__ already
  // shaped the register count ptxas reports.
  if (stats.registers > 0) {
    const int per_warp = (stats.registers * 32 + 255) / 256 * 256;
    result.max_threads_per_block = std::min(1024, 65536 / per_warp * 32);
  }
}

CompileResult run_nvrtc(const CompileRequest& request, const std::string& arch, bool& cacheable) {
  const cuda::Nvrtc& api = cuda::nvrtc();
  CompileResult result;
  result.kernel = request.kernel;
  result.arch = arch;
  ProgramGuard guard;
  const std::string name = request.source_name.empty() ? "kernel.cu" : request.source_name;
  const nvrtcResult created =
      api.nvrtcCreateProgram_(&guard.program, request.source.c_str(), name.c_str(), 0, nullptr, nullptr);
  if (created != NVRTC_SUCCESS) {
    cacheable = false;  // NVRTC itself failed (out of memory...), not the source
    result.log = "nvrtcCreateProgram: " + cuda::error_text(created);
    return result;
  }
  if (!request.kernel.empty()) {
    const nvrtcResult added = api.nvrtcAddNameExpression_(guard.program, request.kernel.c_str());
    if (added != NVRTC_SUCCESS) {
      result.log = "nvrtcAddNameExpression(" + request.kernel + "): " + cuda::error_text(added);
      return result;
    }
  }
  const auto options = nvrtc_options(request, arch);
  std::vector<const char*> option_pointers;
  for (const auto& option : options) option_pointers.push_back(option.c_str());
  const nvrtcResult compiled = api.nvrtcCompileProgram_(
      guard.program, static_cast<int>(option_pointers.size()), option_pointers.data());
  result.log = program_log(guard.program);
  if (compiled != NVRTC_SUCCESS) {
    append_line(result.log, "kforge: nvrtcCompileProgram: " + cuda::error_text(compiled));
    return result;
  }
  collect_outputs(guard.program, request, result);
  if (result.ok) apply_ptxas_stats(result);
  return result;
}

class CudaBackend final : public Backend {
 public:
  std::string name() const override { return "cuda"; }
  Language language() const override { return Language::Cuda; }

  Availability probe() override {
    Availability availability;
    try {
      probe_into(availability);
    } catch (const std::exception& e) {
      availability.usable = false;
      availability.reason = e.what();
    }
    return availability;
  }

  CompileResult compile(const CompileRequest& request) override {
    CompileTarget target;
    try {
      target = compile_target(request.device_index);
    } catch (const EnvironmentError& e) {  // a candidate's compile fails with the reason
      CompileResult result;
      result.kernel = request.kernel;
      result.log = e.what();
      return result;
    }
    const std::string key = compile_cache_key(request, "cuda", target.arch, target.compiler);
    return compile_with_cache(key, [&](bool& cacheable) { return run_nvrtc(request, target.arch, cacheable); });
  }

  // Asks the driver for the architecture (cuInit, no context), once per device index.
  CompileTarget compile_target(int device_index) override {
    const cuda::Nvrtc& api = cuda::nvrtc();
    if (!api.usable) throw EnvironmentError("CUDA: " + api.problem);
    std::lock_guard lock(targets_mutex_);
    if (auto known = targets_.find(device_index); known != targets_.end()) return known->second;
    std::string arch;
    try {
      arch = target_arch(device_index);
    } catch (const std::exception& e) {
      throw EnvironmentError(std::string("CUDA: cannot determine the device architecture: ") + e.what());
    }
    const std::string compiler = "nvrtc " + std::to_string(api.major) + "." + std::to_string(api.minor);
    return targets_[device_index] = CompileTarget{arch, compiler, arch};
  }

  // Uses target.arch as given: a compile worker never initialises the driver.
  CompileResult compile_uncached(const CompileRequest& request, const CompileTarget& target) override {
    const cuda::Nvrtc& api = cuda::nvrtc();
    if (!api.usable) {
      CompileResult result;
      result.kernel = request.kernel;
      result.log = api.problem;
      return result;
    }
    bool cacheable = true;
    return run_nvrtc(request, target.arch.empty() ? arch_without_device() : target.arch, cacheable);
  }

  std::unique_ptr<Device> open_device(int device_index) override {
    return cuda::open_device(device_index);
  }

 private:
  std::mutex targets_mutex_;
  std::map<int, CompileTarget> targets_;

  static void probe_into(Availability& availability) {
    const cuda::Driver& loaded = cuda::driver();
    const cuda::Nvrtc& api = cuda::nvrtc();
    const std::string nvrtc_text =
        api.usable ? "NVRTC " + std::to_string(api.major) + "." + std::to_string(api.minor)
                   : api.problem;
    if (!loaded.usable) {
      availability.reason = loaded.problem + "; " + nvrtc_text;
      return;
    }
    for (int index = 0; index < loaded.device_count; ++index)
      availability.devices.push_back(cuda::query_device_info(index));
    availability.usable = api.usable;
    availability.reason = availability.devices.front().platform + ", " +
                          std::to_string(loaded.device_count) + " device(s), " + nvrtc_text;
  }
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

std::string cuda_driver_problem(const std::string& library) {
  const cuda::Driver loaded = cuda::load_driver({library});
  return loaded.usable ? "" : loaded.problem;
}

}  // namespace kforge

#else  // built without cuda.h / nvrtc.h: a backend that explains why it cannot work

namespace kforge {
namespace {

constexpr const char* kNoHeaders = "kforge was built without CUDA headers (cuda.h, nvrtc.h)";

class UnavailableCudaBackend final : public Backend {
 public:
  std::string name() const override { return "cuda"; }
  Language language() const override { return Language::Cuda; }
  Availability probe() override { return {false, kNoHeaders, {}}; }
  CompileResult compile(const CompileRequest& request) override {
    CompileResult result;
    result.kernel = request.kernel;
    result.log = kNoHeaders;
    return result;
  }
  std::unique_ptr<Device> open_device(int) override { throw DeviceError(kNoHeaders, false); }
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<UnavailableCudaBackend>(); }
std::string cuda_driver_problem(const std::string&) { return kNoHeaders; }

}  // namespace kforge
#endif  // KFORGE_HAVE_CUDA_HEADERS
