#include "backend/opencl/opencl_backend.h"

#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include "backend/compile_cache.h"
#include "backend/opencl/cl_common.h"
#include "backend/opencl/opencl_device.h"
#include "util/encoding.h"

namespace kforge {
namespace {

using opencl::check;

// Releases an OpenCL object on every path out of a scope.
template <typename Handle, cl_int (*Release)(Handle)>
struct Released {
  Handle handle = nullptr;
  ~Released() {
    if (handle) Release(handle);
  }
};
using ProgramHandle = Released<cl_program, clReleaseProgram>;
using KernelHandle = Released<cl_kernel, clReleaseKernel>;

std::string build_options(const CompileRequest& request) {
  std::string options;
  auto add = [&](const std::string& option) {
    if (!options.empty()) options += ' ';
    options += option;
  };
  for (const auto& [name, value] : request.defines) add("-D" + name + "=" + value);
  for (const auto& dir : request.include_dirs) add("-I" + dir);  // paths must not contain spaces
  for (const auto& option : request.options) add(option);
  return options;
}

// What decides the binary besides the request: the exact device and driver.
std::string device_description(const opencl::DeviceRef& ref) {
  return opencl::platform_string(ref.platform, CL_PLATFORM_NAME) + " | " +
         opencl::device_string(ref.device, CL_DEVICE_NAME) + " | " +
         opencl::device_string(ref.device, CL_DEVICE_VERSION);
}

std::string compiler_description(const opencl::DeviceRef& ref) {
  return opencl::platform_string(ref.platform, CL_PLATFORM_VERSION) + " | driver " +
         opencl::device_string(ref.device, CL_DRIVER_VERSION);
}

std::string build_log(cl_program program, cl_device_id device) {
  std::size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS)
    return "";
  std::string log(size, '\0');
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) !=
      CL_SUCCESS)
    return "";
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

void append_line(std::string& log, const std::string& line) {
  if (!log.empty() && log.back() != '\n') log += '\n';
  log += line + '\n';
}

// What the worker builds again: source and options (format "opencl-source"). Not
// CL_PROGRAM_BINARIES: asking PoCL for them compiles the kernel to a .so and dlopen()s it in
// the calling process, which maps generated code into the orchestrator (and a kernel with an
// unresolvable symbol aborts it). The worker's rebuild hits the runtime's own kernel cache.
// The source travels as base64: it is byte-exact, and a non-UTF-8 byte in a comment must not
// make the JSON dump throw (that used to turn a valid kernel into a compile_error).
std::string source_payload(const CompileRequest& request, const std::string& options) {
  return nlohmann::json{{"source_b64", base64_encode(request.source)}, {"options", options}}.dump();
}

void read_kernel_stats(cl_kernel kernel, cl_device_id device, CompileResult& result) {
  cl_ulong local = 0, priv = 0;
  std::size_t work_group = 0;
  check(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(local), &local, nullptr),
        "clGetKernelWorkGroupInfo(CL_KERNEL_LOCAL_MEM_SIZE)");
  check(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof(priv), &priv, nullptr),
        "clGetKernelWorkGroupInfo(CL_KERNEL_PRIVATE_MEM_SIZE)");
  check(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(work_group),
                                 &work_group, nullptr),
        "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
  result.shared_bytes = static_cast<int>(local);
  result.local_bytes = static_cast<int>(priv);
  result.max_threads_per_block = static_cast<int>(work_group);
}

// Builds and inspects an already-created program; fills `result`.
void build_program(cl_program program, cl_device_id device, const CompileRequest& request,
                   CompileResult& result) {
  const std::string options = build_options(request);
  const cl_int built = clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr);
  result.log = build_log(program, device);
  if (built != CL_SUCCESS) {
    append_line(result.log, "kforge: clBuildProgram: " + opencl::error_name(built));
    return;
  }
  KernelHandle kernel;
  cl_int status = CL_SUCCESS;
  kernel.handle = clCreateKernel(program, request.kernel.c_str(), &status);
  if (status != CL_SUCCESS) {
    append_line(result.log, "kforge: kernel '" + request.kernel + "' not found: " +
                                opencl::error_name(status));
    return;
  }
  read_kernel_stats(kernel.handle, device, result);
  result.binary = source_payload(request, options);
  result.binary_format = "opencl-source";
  result.ok = true;
}

class OpenClBackend final : public Backend {
 public:
  ~OpenClBackend() override {
    for (auto& [device, context] : contexts_) clReleaseContext(context);
  }

  std::string name() const override { return "opencl"; }
  Language language() const override { return Language::OpenCL; }

  Availability probe() override {
    Availability availability;
    try {
      for (const auto& ref : opencl::list_devices())
        availability.devices.push_back(opencl::query_device_info(ref));
      availability.usable = !availability.devices.empty();
      availability.reason = availability.usable
                                ? std::to_string(availability.devices.size()) +
                                      " device(s), default " + availability.devices.front().name
                                : "no OpenCL device (no ICD platform found)";
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
    } catch (const std::exception& e) {
      CompileResult result;
      result.kernel = request.kernel;
      result.log = e.what();
      return result;
    }
    const std::string key = compile_cache_key(request, "opencl", target.device, target.compiler);
    return compile_with_cache(key, [&](bool& cacheable) { return build(device_ref(request.device_index), request, cacheable); });
  }

  CompileTarget compile_target(int device_index) override {
    const opencl::DeviceRef ref = device_ref(device_index);
    std::lock_guard lock(mutex_);
    if (auto known = targets_.find(device_index); known != targets_.end()) return known->second;
    try {
      CompileTarget target{device_description(ref), compiler_description(ref),
                           opencl::device_string(ref.device, CL_DEVICE_NAME)};
      return targets_[device_index] = target;
    } catch (const std::exception& e) {
      throw EnvironmentError(std::string("OpenCL: ") + e.what());
    }
  }

  void prepare_compile_worker(int device_index) override { compile_target(device_index); }

  CompileResult compile_uncached(const CompileRequest& request, const CompileTarget&) override {
    bool cacheable = true;
    return build(device_ref(request.device_index), request, cacheable);
  }

  std::unique_ptr<Device> open_device(int device_index) override {
    return opencl::open_device(device_index);
  }

 private:
  CompileResult build(const opencl::DeviceRef& ref, const CompileRequest& request, bool& cacheable) {
    CompileResult result;
    result.kernel = request.kernel;
    try {
      result.arch = opencl::device_string(ref.device, CL_DEVICE_NAME);
      // One build at a time per context: PoCL and some vendor drivers are not safe with
      // concurrent clBuildProgram calls on a shared context.
      std::lock_guard lock(mutex_);
      ProgramHandle program;
      const char* text = request.source.c_str();
      const std::size_t length = request.source.size();
      cl_int status = CL_SUCCESS;
      program.handle = clCreateProgramWithSource(context_for(ref.device), 1, &text, &length, &status);
      check(status, "clCreateProgramWithSource");
      build_program(program.handle, ref.device, request, result);
    } catch (const std::exception& e) {
      cacheable = false;  // the runtime failed, not the source: try again next time
      result.ok = false;
      append_line(result.log, std::string("kforge: ") + e.what());
    }
    return result;
  }

  // The platform and device, looked up once per index under the lock: PoCL's platform
  // initialisation is not thread-safe (two compile threads querying it at once crashed
  // `kforge sweep`, or saw no platform at all). Throws EnvironmentError.
  opencl::DeviceRef device_ref(int device_index) {
    std::lock_guard lock(mutex_);
    if (auto known = refs_.find(device_index); known != refs_.end()) return known->second;
    try {
      return refs_[device_index] = opencl::select_device(device_index);
    } catch (const std::exception& e) {
      throw EnvironmentError(std::string("OpenCL: ") + e.what());
    }
  }

  // Caller holds mutex_.
  cl_context context_for(cl_device_id device) {
    if (auto found = contexts_.find(device); found != contexts_.end()) return found->second;
    cl_int status = CL_SUCCESS;
    cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
    check(status, "clCreateContext");
    contexts_[device] = context;
    return context;
  }

  std::mutex mutex_;
  std::map<cl_device_id, cl_context> contexts_;
  std::map<int, opencl::DeviceRef> refs_;
  std::map<int, CompileTarget> targets_;
};

}  // namespace

std::unique_ptr<Backend> make_opencl_backend() { return std::make_unique<OpenClBackend>(); }

}  // namespace kforge
