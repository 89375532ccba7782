// Run-time loading of the CUDA driver (libcuda) and NVRTC: kforge builds and runs on machines
// without either, so nothing links against them. Internal to the CUDA backend.
#pragma once

#include <cuda.h>
#include <nvrtc.h>

#include <string>
#include <vector>

namespace kforge::cuda {

// Driver entry points kforge uses. Each is resolved by its un-suffixed API name through
// cuGetProcAddress for the header's CUDA_VERSION, which returns the variant whose ABI matches
// cuda.h (cuda.h #defines e.g. cuMemAlloc to cuMemAlloc_v2 and cuEventElapsedTime to
// cuEventElapsedTime_v2). When that fails, the header-mapped symbol is looked up with dlsym.
#define KFORGE_CUDA_DRIVER_FUNCTIONS(X)                                                   \
  X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName)             \
  X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain)                 \
  X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuMemAlloc)       \
  X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoDAsync) X(cuMemsetD8)         \
  X(cuMemsetD8Async)                                                                      \
  X(cuMemsetD32Async) X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction)        \
  X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuLaunchKernel) X(cuStreamCreate)         \
  X(cuStreamDestroy) X(cuStreamSynchronize) X(cuEventCreate) X(cuEventDestroy)            \
  X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime)

#define KFORGE_NVRTC_FUNCTIONS(X)                                                         \
  X(nvrtcVersion) X(nvrtcGetErrorString) X(nvrtcCreateProgram) X(nvrtcDestroyProgram)     \
  X(nvrtcCompileProgram) X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog)                  \
  X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN) X(nvrtcAddNameExpression) X(nvrtcGetLoweredName)

#define KFORGE_DECLARE_POINTER(name) decltype(&::name) name##_ = nullptr;

// The driver library and its state after cuInit. `usable` is false with `problem` saying why:
// library missing, a stub (toolkit's lib64/stubs, no NVIDIA driver), or no device.
struct Driver {
  void* handle = nullptr;
  std::string library;
  bool usable = false;
  std::string problem;
  int version = 0;  // cuDriverGetVersion, e.g. 13000
  int device_count = 0;
  decltype(&::cuInit) cuInit_ = nullptr;
  decltype(&::cuGetErrorName) cuGetErrorName_ = nullptr;
  decltype(&::cuGetErrorString) cuGetErrorString_ = nullptr;
  KFORGE_CUDA_DRIVER_FUNCTIONS(KFORGE_DECLARE_POINTER)
};

struct Nvrtc {
  void* handle = nullptr;
  std::string library;
  bool usable = false;
  std::string problem;
  int major = 0, minor = 0;
  KFORGE_NVRTC_FUNCTIONS(KFORGE_DECLARE_POINTER)
};

#undef KFORGE_DECLARE_POINTER

// Loads and initializes the driver from the first of `libraries` that opens. The handle is
// never closed: unloading libcuda while a context may exist is unsafe.
Driver load_driver(const std::vector<std::string>& libraries);
// The process-wide driver: $KFORGE_LIBCUDA if set, else libcuda.so.1 / libcuda.so.
const Driver& driver();
// The process-wide NVRTC: $KFORGE_LIBNVRTC, else libnvrtc.so.{13,12,} by soname, under
// $CUDA_HOME/lib64 and /usr/local/cuda/lib64.
const Nvrtc& nvrtc();

// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)".
std::string error_text(CUresult result);
std::string error_text(nvrtcResult result);
// Errors after which the context is corrupt and every later call fails: the process must go.
bool is_sticky(CUresult result);
// Throws DeviceError("<call>: <error_text>", is_sticky) unless `result` is CUDA_SUCCESS.
void check(CUresult result, const char* call);

// Directory with cuda_fp16.h etc. for -I, or empty if none was found.
std::string toolkit_include_dir();

}  // namespace kforge::cuda
