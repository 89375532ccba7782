#include "backend/opencl/cl_common.h"

#include <cstdlib>
#include <regex>

namespace kforge::opencl {

std::string error_name(cl_int code) {
  switch (code) {
#define KFORGE_CL_ERROR(name) \
  case name:                  \
    return #name;
    KFORGE_CL_ERROR(CL_SUCCESS)
    KFORGE_CL_ERROR(CL_DEVICE_NOT_FOUND)
    KFORGE_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
    KFORGE_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
    KFORGE_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    KFORGE_CL_ERROR(CL_OUT_OF_RESOURCES)
    KFORGE_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
    KFORGE_CL_ERROR(CL_PROFILING_INFO_NOT_AVAILABLE)
    KFORGE_CL_ERROR(CL_MEM_COPY_OVERLAP)
    KFORGE_CL_ERROR(CL_IMAGE_FORMAT_MISMATCH)
    KFORGE_CL_ERROR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    KFORGE_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
    KFORGE_CL_ERROR(CL_MAP_FAILURE)
    KFORGE_CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    KFORGE_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    KFORGE_CL_ERROR(CL_COMPILE_PROGRAM_FAILURE)
    KFORGE_CL_ERROR(CL_LINKER_NOT_AVAILABLE)
    KFORGE_CL_ERROR(CL_LINK_PROGRAM_FAILURE)
    KFORGE_CL_ERROR(CL_DEVICE_PARTITION_FAILED)
    KFORGE_CL_ERROR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    KFORGE_CL_ERROR(CL_INVALID_VALUE)
    KFORGE_CL_ERROR(CL_INVALID_DEVICE_TYPE)
    KFORGE_CL_ERROR(CL_INVALID_PLATFORM)
    KFORGE_CL_ERROR(CL_INVALID_DEVICE)
    KFORGE_CL_ERROR(CL_INVALID_CONTEXT)
    KFORGE_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES)
    KFORGE_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
    KFORGE_CL_ERROR(CL_INVALID_HOST_PTR)
    KFORGE_CL_ERROR(CL_INVALID_MEM_OBJECT)
    KFORGE_CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    KFORGE_CL_ERROR(CL_INVALID_IMAGE_SIZE)
    KFORGE_CL_ERROR(CL_INVALID_SAMPLER)
    KFORGE_CL_ERROR(CL_INVALID_BINARY)
    KFORGE_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
    KFORGE_CL_ERROR(CL_INVALID_PROGRAM)
    KFORGE_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
    KFORGE_CL_ERROR(CL_INVALID_KERNEL_NAME)
    KFORGE_CL_ERROR(CL_INVALID_KERNEL_DEFINITION)
    KFORGE_CL_ERROR(CL_INVALID_KERNEL)
    KFORGE_CL_ERROR(CL_INVALID_ARG_INDEX)
    KFORGE_CL_ERROR(CL_INVALID_ARG_VALUE)
    KFORGE_CL_ERROR(CL_INVALID_ARG_SIZE)
    KFORGE_CL_ERROR(CL_INVALID_KERNEL_ARGS)
    KFORGE_CL_ERROR(CL_INVALID_WORK_DIMENSION)
    KFORGE_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
    KFORGE_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
    KFORGE_CL_ERROR(CL_INVALID_GLOBAL_OFFSET)
    KFORGE_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST)
    KFORGE_CL_ERROR(CL_INVALID_EVENT)
    KFORGE_CL_ERROR(CL_INVALID_OPERATION)
    KFORGE_CL_ERROR(CL_INVALID_GL_OBJECT)
    KFORGE_CL_ERROR(CL_INVALID_BUFFER_SIZE)
    KFORGE_CL_ERROR(CL_INVALID_MIP_LEVEL)
    KFORGE_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
    KFORGE_CL_ERROR(CL_INVALID_PROPERTY)
    KFORGE_CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR)
    KFORGE_CL_ERROR(CL_INVALID_COMPILER_OPTIONS)
    KFORGE_CL_ERROR(CL_INVALID_LINKER_OPTIONS)
    KFORGE_CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef KFORGE_CL_ERROR
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    case -9999:
      return "NVIDIA illegal memory access (-9999)";
    default:
      return "CL error " + std::to_string(code);
  }
}

bool is_fatal(cl_int code) {
  return code == CL_OUT_OF_RESOURCES || code == CL_INVALID_COMMAND_QUEUE ||
         code == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST || code == -9999;
}

void check(cl_int code, const char* call, bool sync_point) {
  if (code == CL_SUCCESS) return;
  throw DeviceError(std::string(call) + ": " + error_name(code), sync_point && is_fatal(code));
}

std::string device_string(cl_device_id device, cl_device_info what) {
  std::size_t size = 0;
  check(clGetDeviceInfo(device, what, 0, nullptr, &size), "clGetDeviceInfo");
  std::string text(size, '\0');
  check(clGetDeviceInfo(device, what, size, text.data(), nullptr), "clGetDeviceInfo");
  while (!text.empty() && (text.back() == '\0' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
  std::size_t size = 0;
  check(clGetPlatformInfo(platform, what, 0, nullptr, &size), "clGetPlatformInfo");
  std::string text(size, '\0');
  check(clGetPlatformInfo(platform, what, size, text.data(), nullptr), "clGetPlatformInfo");
  while (!text.empty() && (text.back() == '\0' || text.back() == ' ')) text.pop_back();
  return text;
}

namespace {

std::vector<cl_platform_id> platforms() {
  cl_uint count = 0;
  const cl_int status = clGetPlatformIDs(0, nullptr, &count);
  if (status == -1001 || count == 0) return {};  // the ICD loader found no driver
  check(status, "clGetPlatformIDs");
  std::vector<cl_platform_id> ids(count);
  check(clGetPlatformIDs(count, ids.data(), nullptr), "clGetPlatformIDs");
  return ids;
}

std::vector<cl_device_id> devices_of(cl_platform_id platform) {
  cl_uint count = 0;
  const cl_int status = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count);
  if (status == CL_DEVICE_NOT_FOUND || count == 0) return {};
  check(status, "clGetDeviceIDs");
  std::vector<cl_device_id> ids(count);
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr), "clGetDeviceIDs");
  return ids;
}

std::vector<DeviceRef> all_devices() {
  std::vector<DeviceRef> refs;
  const auto platform_ids = platforms();
  for (std::size_t p = 0; p < platform_ids.size(); ++p) {
    const auto device_ids = devices_of(platform_ids[p]);
    for (std::size_t d = 0; d < device_ids.size(); ++d)
      refs.push_back({platform_ids[p], device_ids[d], static_cast<int>(p), static_cast<int>(d)});
  }
  return refs;
}

bool is_gpu(cl_device_id device) {
  return (device_value<cl_device_type>(device, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) != 0;
}

DeviceRef device_named_by_env(const std::string& spec, const std::vector<DeviceRef>& all) {
  static const std::regex format(R"((\d+):(\d+))");
  std::smatch match;
  if (!std::regex_match(spec, match, format))
    throw DeviceError("KFORGE_OPENCL_DEVICE='" + spec + "': expected platform:device, e.g. 0:1",
                      false);
  const int platform = std::stoi(match[1].str());
  const int device = std::stoi(match[2].str());
  for (const auto& ref : all)
    if (ref.platform_index == platform && ref.device_index == device) return ref;
  throw DeviceError("KFORGE_OPENCL_DEVICE=" + spec + ": no such OpenCL device (" +
                        std::to_string(all.size()) + " found; see clinfo -l)",
                    false);
}

}  // namespace

std::vector<DeviceRef> list_devices() {
  const auto all = all_devices();
  if (const char* spec = std::getenv("KFORGE_OPENCL_DEVICE"); spec && *spec)
    return {device_named_by_env(spec, all)};
  std::vector<DeviceRef> ordered;
  for (const auto& ref : all)
    if (is_gpu(ref.device)) ordered.push_back(ref);
  for (const auto& ref : all)
    if (!is_gpu(ref.device)) ordered.push_back(ref);
  return ordered;
}

DeviceRef select_device(int index) {
  const auto devices = list_devices();
  if (devices.empty()) throw DeviceError("no OpenCL device (no ICD platform found)", false);
  if (index < 0 || index >= static_cast<int>(devices.size()))
    throw DeviceError("OpenCL device " + std::to_string(index) + " does not exist (" +
                          std::to_string(devices.size()) + " present)",
                      false);
  return devices[index];
}

DeviceInfo query_device_info(const DeviceRef& ref) {
  DeviceInfo info;
  info.backend = "opencl";
  info.name = device_string(ref.device, CL_DEVICE_NAME);
  info.arch = device_string(ref.device, CL_DEVICE_VERSION);
  info.platform = platform_string(ref.platform, CL_PLATFORM_NAME);
  info.compute_units = static_cast<int>(device_value<cl_uint>(ref.device, CL_DEVICE_MAX_COMPUTE_UNITS));
  info.global_mem_bytes =
      static_cast<std::int64_t>(device_value<cl_ulong>(ref.device, CL_DEVICE_GLOBAL_MEM_SIZE));
  info.l2_bytes =
      static_cast<std::int64_t>(device_value<cl_ulong>(ref.device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE));
  info.shared_mem_per_block =
      static_cast<std::int64_t>(device_value<cl_ulong>(ref.device, CL_DEVICE_LOCAL_MEM_SIZE));
  info.max_threads_per_block =
      static_cast<int>(device_value<std::size_t>(ref.device, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  info.clock_mhz = static_cast<int>(device_value<cl_uint>(ref.device, CL_DEVICE_MAX_CLOCK_FREQUENCY));
  info.is_gpu = is_gpu(ref.device);
  return info;
}

}  // namespace kforge::opencl
