// Helpers shared by the OpenCL backend and device: error names, device selection, queries.
#pragma once

#include <CL/cl.h>

#include <string>
#include <vector>

#include "backend/backend.h"

namespace kforge::opencl {

// "CL_BUILD_PROGRAM_FAILURE", or "CL error -N" for codes outside the 1.2 core set.
std::string error_name(cl_int code);

// Codes that mean the device or queue died under a kernel (NVIDIA reports an out-of-bounds
// access as CL_OUT_OF_RESOURCES or -9999 at the next sync point); the worker must be replaced.
bool is_fatal(cl_int code);

// Throws DeviceError("<call>: <error name>") unless `code` is CL_SUCCESS. `sync_point` marks
// calls that wait for kernels (finish, wait, blocking transfers), whose failures are fatal.
void check(cl_int code, const char* call, bool sync_point = false);

struct DeviceRef {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  int platform_index = 0;
  int device_index = 0;  // within its platform
};

// Devices in kforge's order: only the one KFORGE_OPENCL_DEVICE=platform:device names, when
// set; else GPUs first, then other devices, each in platform order. Index 0 is the default.
std::vector<DeviceRef> list_devices();
// list_devices()[index], or a DeviceError naming what exists.
DeviceRef select_device(int index);

std::string device_string(cl_device_id device, cl_device_info what);
std::string platform_string(cl_platform_id platform, cl_platform_info what);
template <typename T>
T device_value(cl_device_id device, cl_device_info what) {
  T value{};
  check(clGetDeviceInfo(device, what, sizeof(value), &value, nullptr), "clGetDeviceInfo");
  return value;
}

DeviceInfo query_device_info(const DeviceRef& ref);

}  // namespace kforge::opencl
