#if KFORGE_HAVE_CUDA_HEADERS
#include "backend/cuda/cuda_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "backend/backend.h"

namespace kforge::cuda {
namespace {

#define KFORGE_STRINGIFY_EXPANDED(x) KFORGE_STRINGIFY(x)
#define KFORGE_STRINGIFY(x) #x

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

void* open_first(const std::vector<std::string>& libraries, std::string& opened, std::string& errors) {
  for (const auto& library : libraries) {
    if (void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      opened = library;
      return handle;
    }
    const char* error = dlerror();
    if (!errors.empty()) errors += "; ";
    errors += error ? error : library + ": cannot open";
  }
  return nullptr;
}

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t,
                                    CUdriverProcAddressQueryResult*);

// Prefers cuGetProcAddress (the driver picks the ABI matching our CUDA_VERSION); falls back
// to dlsym of the symbol cuda.h maps the name to.
template <typename Pointer>
bool resolve(void* handle, GetProcAddress get_proc, const char* api_name, const char* symbol,
             Pointer& target) {
  void* function = nullptr;
  if (get_proc) {
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (get_proc(api_name, &function, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status) !=
            CUDA_SUCCESS ||
        status != CU_GET_PROC_ADDRESS_SUCCESS)
      function = nullptr;
  }
  if (!function) function = dlsym(handle, symbol);
  target = reinterpret_cast<Pointer>(function);
  return function != nullptr;
}

// Error text from the given library, which may not be the process-wide one.
std::string describe_error(const Driver& driver, CUresult result) {
  const char* name = nullptr;
  const char* description = nullptr;
  if (driver.cuGetErrorName_) driver.cuGetErrorName_(result, &name);
  if (driver.cuGetErrorString_) driver.cuGetErrorString_(result, &description);
  std::string text = name ? name : "CUresult " + std::to_string(static_cast<int>(result));
  if (description) text += std::string(" (") + description + ")";
  return text;
}

std::string describe_init_failure(const Driver& driver, CUresult result) {
  if (result == CUDA_ERROR_STUB_LIBRARY)
    return "driver is a stub (" + driver.library + "): no NVIDIA driver installed";
  if (result == CUDA_ERROR_NO_DEVICE) return "no CUDA device";
  return "cuInit failed: " + describe_error(driver, result);
}

// Resolves the entry points; returns the first one missing, or empty.
std::string resolve_driver_functions(Driver& driver) {
  auto get_proc = reinterpret_cast<GetProcAddress>(dlsym(driver.handle, "cuGetProcAddress_v2"));
#define KFORGE_RESOLVE(name)                                                               \
  if (!resolve(driver.handle, get_proc, #name, KFORGE_STRINGIFY_EXPANDED(name), driver.name##_)) \
    return KFORGE_STRINGIFY_EXPANDED(name);
  KFORGE_CUDA_DRIVER_FUNCTIONS(KFORGE_RESOLVE)
#undef KFORGE_RESOLVE
  return "";
}

}  // namespace

Driver load_driver(const std::vector<std::string>& libraries) {
  Driver driver;
  std::string errors;
  driver.handle = open_first(libraries, driver.library, errors);
  if (!driver.handle) {
    driver.problem = "libcuda not found (" + errors + ")";
    return driver;
  }
  // These three exist unversioned in every driver, and cuInit must succeed before
  // cuGetProcAddress is meaningful (the stub library fails it with CUDA_ERROR_STUB_LIBRARY).
  driver.cuInit_ = reinterpret_cast<decltype(driver.cuInit_)>(dlsym(driver.handle, "cuInit"));
  driver.cuGetErrorName_ =
      reinterpret_cast<decltype(driver.cuGetErrorName_)>(dlsym(driver.handle, "cuGetErrorName"));
  driver.cuGetErrorString_ = reinterpret_cast<decltype(driver.cuGetErrorString_)>(
      dlsym(driver.handle, "cuGetErrorString"));
  if (!driver.cuInit_ || !driver.cuGetErrorName_ || !driver.cuGetErrorString_) {
    driver.problem = driver.library + " is not a CUDA driver (cuInit missing)";
    return driver;
  }
  const CUresult init = driver.cuInit_(0);
  if (init != CUDA_SUCCESS) {
    driver.problem = describe_init_failure(driver, init);
    return driver;
  }
  if (auto missing = resolve_driver_functions(driver); !missing.empty()) {
    driver.problem = "driver " + driver.library + " lacks " + missing + " (driver too old?)";
    return driver;
  }
  driver.cuDriverGetVersion_(&driver.version);
  if (driver.cuDeviceGetCount_(&driver.device_count) != CUDA_SUCCESS || driver.device_count == 0) {
    driver.problem = "no CUDA device";
    return driver;
  }
  driver.usable = true;
  return driver;
}

const Driver& driver() {
  static const Driver instance = [] {
    const std::string override_path = env_or_empty("KFORGE_LIBCUDA");
    if (!override_path.empty()) return load_driver({override_path});
    return load_driver({"libcuda.so.1", "libcuda.so"});
  }();
  return instance;
}

namespace {

std::vector<std::string> nvrtc_candidates() {
  if (auto path = env_or_empty("KFORGE_LIBNVRTC"); !path.empty()) return {path};
  const std::vector<std::string> names{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
  std::vector<std::string> candidates = names;
  std::vector<std::string> dirs;
  if (auto home = env_or_empty("CUDA_HOME"); !home.empty()) dirs.push_back(home + "/lib64");
  dirs.push_back("/usr/local/cuda/lib64");
  for (const auto& dir : dirs)
    for (const auto& name : names) candidates.push_back(dir + "/" + name);
  return candidates;
}

std::string resolve_nvrtc_functions(Nvrtc& library) {
#define KFORGE_RESOLVE(name)                                                     \
  library.name##_ = reinterpret_cast<decltype(library.name##_)>(dlsym(library.handle, #name)); \
  if (!library.name##_) return #name;
  KFORGE_NVRTC_FUNCTIONS(KFORGE_RESOLVE)
#undef KFORGE_RESOLVE
  return "";
}

Nvrtc load_nvrtc() {
  Nvrtc library;
  std::string errors;
  library.handle = open_first(nvrtc_candidates(), library.library, errors);
  if (!library.handle) {
    library.problem = "NVRTC not found (" + errors + ")";
    return library;
  }
  if (auto missing = resolve_nvrtc_functions(library); !missing.empty()) {
    library.problem = library.library + " lacks " + missing;
    return library;
  }
  library.nvrtcVersion_(&library.major, &library.minor);
  library.usable = true;
  return library;
}

}  // namespace

const Nvrtc& nvrtc() {
  static const Nvrtc instance = load_nvrtc();
  return instance;
}

std::string error_text(CUresult result) { return describe_error(driver(), result); }

std::string error_text(nvrtcResult result) {
  const Nvrtc& loaded = nvrtc();
  const char* text = loaded.nvrtcGetErrorString_ ? loaded.nvrtcGetErrorString_(result) : nullptr;
  return text ? text : "nvrtcResult " + std::to_string(static_cast<int>(result));
}

bool is_sticky(CUresult result) {
  switch (result) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTAINED:
    case CUDA_ERROR_UNKNOWN:  // unexplained failures: trusting the context is not worth it
      return true;
    default:
      return false;
  }
}

void check(CUresult result, const char* call) {
  if (result == CUDA_SUCCESS) return;
  throw DeviceError(std::string(call) + ": " + error_text(result), is_sticky(result));
}

std::string toolkit_include_dir() {
  std::vector<std::string> dirs;
  if (auto home = env_or_empty("CUDA_HOME"); !home.empty()) dirs.push_back(home + "/include");
  if (auto path = env_or_empty("CUDA_PATH"); !path.empty()) dirs.push_back(path + "/include");
  dirs.push_back("/usr/local/cuda/include");
  for (const auto& dir : dirs) {
    std::error_code error;
    if (std::filesystem::exists(dir + "/cuda_fp16.h", error)) return dir;
  }
  return "";
}

}  // namespace kforge::cuda
#endif  // KFORGE_HAVE_CUDA_HEADERS
