#if KFORGE_HAVE_CUDA_HEADERS
#include "backend/cuda/cuda_api.h"
#include "backend/cuda/cuda_internal.h"

namespace kforge::cuda {
namespace {

CUdevice get_device(int index) {
  const Driver& loaded = driver();
  if (!loaded.usable) throw DeviceError(loaded.problem, false);
  if (index < 0 || index >= loaded.device_count)
    throw DeviceError("CUDA device " + std::to_string(index) + " does not exist (" +
                          std::to_string(loaded.device_count) + " present)",
                      false);
  CUdevice device = 0;
  check(loaded.cuDeviceGet_(&device, index), "cuDeviceGet");
  return device;
}

int attribute(CUdevice device, CUdevice_attribute which, const char* what) {
  int value = 0;
  const CUresult result = driver().cuDeviceGetAttribute_(&value, which, device);
  if (result != CUDA_SUCCESS)
    throw DeviceError(std::string("cuDeviceGetAttribute(") + what + "): " + error_text(result),
                      is_sticky(result));
  return value;
}

// Attributes that newer drivers may retire; 0 rather than failing the whole query.
int optional_attribute(CUdevice device, CUdevice_attribute which) {
  int value = 0;
  if (driver().cuDeviceGetAttribute_(&value, which, device) != CUDA_SUCCESS) return 0;
  return value;
}

std::string driver_version_text(int version) {
  return "CUDA driver " + std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

}  // namespace

std::string device_arch(int index) {
  const CUdevice device = get_device(index);
  const int major = attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "cc major");
  const int minor = attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "cc minor");
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

DeviceInfo query_device_info(int index) {
  const Driver& loaded = driver();
  const CUdevice device = get_device(index);
  DeviceInfo info;
  info.backend = "cuda";
  char name[256] = {};
  check(loaded.cuDeviceGetName_(name, sizeof(name), device), "cuDeviceGetName");
  info.name = name;
  info.arch = device_arch(index);
  info.platform = driver_version_text(loaded.version);
  info.compute_units = attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "SM count");
  std::size_t total = 0;
  check(loaded.cuDeviceTotalMem_(&total, device), "cuDeviceTotalMem");
  info.global_mem_bytes = static_cast<std::int64_t>(total);
  info.l2_bytes = attribute(device, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2 size");
  // The opt-in limit: launch() raises a kernel's dynamic shared memory cap up to it.
  info.shared_mem_per_block =
      attribute(device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "shared optin");
  info.max_threads_per_block =
      attribute(device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "max threads per block");
  info.clock_mhz = optional_attribute(device, CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;
  info.is_gpu = true;
  return info;
}

}  // namespace kforge::cuda
#endif  // KFORGE_HAVE_CUDA_HEADERS
