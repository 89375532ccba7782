#include "backend/opencl/opencl_device.h"

#include "util/encoding.h"

#include <algorithm>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/device_tables.h"
#include "backend/guard.h"
#include "backend/opencl/cl_common.h"

namespace kforge::opencl {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kFlushMin = 32 * kMiB;
constexpr std::size_t kFlushMax = 512 * kMiB;
constexpr std::size_t kBandwidthBytes = 256 * kMiB;
constexpr int kBandwidthRepeats = 5;

// The kernel sees a sub-buffer starting `guard` bytes into the allocation; the tail guard
// follows its `span` bytes.
struct Buffer {
  cl_mem whole = nullptr;
  cl_mem user = nullptr;
  std::size_t bytes = 0;
  std::size_t span = 0;  // bytes, but at least 1: OpenCL has no empty sub-buffers
  std::size_t guard = 0;
};

struct Kernel {
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;
};

std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Device time between the START and END of a finished event, in milliseconds.
double event_ms(cl_event event) {
  cl_ulong start = 0, end = 0;
  check(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr),
        "clGetEventProfilingInfo(START)");
  check(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr),
        "clGetEventProfilingInfo(END)");
  return static_cast<double>(end - start) * 1e-6;
}

// Waits for and releases an event, returning its duration.
double finish_event(cl_event event) {
  const cl_int waited = clWaitForEvents(1, &event);
  if (waited != CL_SUCCESS) {
    clReleaseEvent(event);
    check(waited, "clWaitForEvents", true);
  }
  double ms = 0;
  try {
    ms = event_ms(event);
  } catch (...) {
    clReleaseEvent(event);
    throw;
  }
  clReleaseEvent(event);
  return ms;
}

class OpenClDevice final : public Device {
 public:
  explicit OpenClDevice(int index) : ref_(select_device(index)), info_(query_device_info(ref_)) {
    cl_int status = CL_SUCCESS;
    context_ = clCreateContext(nullptr, 1, &ref_.device, nullptr, nullptr, &status);
    check(status, "clCreateContext");
    queue_ = clCreateCommandQueue(context_, ref_.device, CL_QUEUE_PROFILING_ENABLE, &status);
    check(status, "clCreateCommandQueue");
    // Sub-buffer origins must be aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN (given in bits).
    const std::size_t align = std::max<std::size_t>(
        1, device_value<cl_uint>(ref_.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8);
    guard_ = round_up(kGuardBytes, align);
    max_alloc_ = static_cast<std::size_t>(device_value<cl_ulong>(ref_.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
  }

  ~OpenClDevice() override {
    if (queue_) clFinish(queue_);
    for (auto& [id, kernel] : kernels_) release(kernel);
    for (auto& [id, buffer] : buffers_) release(buffer);
    if (flush_buffer_) clReleaseMemObject(flush_buffer_);
    if (queue_) clReleaseCommandQueue(queue_);
    if (context_) clReleaseContext(context_);
  }

  const DeviceInfo& info() const override { return info_; }

  BufferId alloc(std::size_t bytes) override {
    Buffer buffer;
    buffer.bytes = bytes;
    buffer.span = std::max<std::size_t>(bytes, 1);
    buffer.guard = guard_;
    cl_int status = CL_SUCCESS;
    buffer.whole = clCreateBuffer(context_, CL_MEM_READ_WRITE, buffer.span + 2 * guard_, nullptr, &status);
    check(status, "clCreateBuffer");
    const cl_buffer_region region{guard_, buffer.span};
    buffer.user = clCreateSubBuffer(buffer.whole, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                    &region, &status);
    if (status != CL_SUCCESS) {
      clReleaseMemObject(buffer.whole);
      check(status, "clCreateSubBuffer");
    }
    const BufferId id = next_buffer_++;
    buffers_[id] = buffer;
    fill_guards_and_zero(buffer);
    return id;
  }

  void free(BufferId id) override {
    const Buffer buffer = find_buffer(id);
    buffers_.erase(id);
    check(clFinish(queue_), "clFinish", true);  // no kernel may still use it
    release(buffer);
  }

  void upload(BufferId id, const void* host, std::size_t bytes) override {
    const Buffer& buffer = checked_buffer(id, bytes, "upload");
    if (!bytes) return;
    check(clEnqueueWriteBuffer(queue_, buffer.user, CL_TRUE, 0, bytes, host, 0, nullptr, nullptr),
          "clEnqueueWriteBuffer", true);
  }

  void download(BufferId id, void* host, std::size_t bytes) override {
    const Buffer& buffer = checked_buffer(id, bytes, "download");
    if (!bytes) return;
    check(clEnqueueReadBuffer(queue_, buffer.user, CL_TRUE, 0, bytes, host, 0, nullptr, nullptr),
          "clEnqueueReadBuffer", true);
  }

  void fill(BufferId id, std::uint8_t value) override {
    const Buffer& buffer = find_buffer(id);
    if (!buffer.bytes) return;
    const cl_uchar pattern = value;
    check(clEnqueueFillBuffer(queue_, buffer.user, &pattern, sizeof(pattern), 0, buffer.bytes, 0, nullptr, nullptr),
          "clEnqueueFillBuffer(poison)", true);
  }

  bool guards_intact(BufferId id) override {
    const Buffer& buffer = find_buffer(id);
    const auto canary = guard_canary(buffer.guard);
    std::vector<std::uint8_t> head(buffer.guard), tail(buffer.guard);
    read_whole(buffer, 0, head);
    read_whole(buffer, buffer.guard + buffer.span, tail);
    return head == canary && tail == canary;
  }

  KernelId load(const CompileResult& compiled, const std::string& kernel) override {
    if (!compiled.ok) throw DeviceError("load: the compile failed", false);
    // "opencl-source": the orchestrator only checked that the source builds; the program is
    // built here, in the sandbox. "opencl-binary": CL_PROGRAM_BINARIES (older compile caches).
    Kernel loaded;
    if (compiled.binary_format == "opencl-source")
      loaded.program = program_from_source(compiled.binary);
    else if (compiled.binary_format == "opencl-binary")
      loaded.program = program_from_binary(compiled.binary);
    else
      throw DeviceError("load: OpenCL cannot load a '" + compiled.binary_format + "' binary", false);
    cl_int status = CL_SUCCESS;
    loaded.kernel = clCreateKernel(loaded.program, kernel.c_str(), &status);
    if (status != CL_SUCCESS) {
      clReleaseProgram(loaded.program);
      check(status, ("clCreateKernel(" + kernel + ")").c_str());
    }
    const KernelId id = next_kernel_++;
    kernels_[id] = loaded;
    return id;
  }

  void launch(KernelId id, const std::vector<KernelArg>& args, const LaunchDims& dims) override {
    enqueue(find_kernel(id), args, dims, nullptr);
    check(clFlush(queue_), "clFlush");
  }

  double launch_timed(KernelId id, const std::vector<KernelArg>& args,
                      const LaunchDims& dims) override {
    cl_event event = nullptr;
    enqueue(find_kernel(id), args, dims, &event);
    return finish_event(event);
  }

  void synchronize() override { check(clFinish(queue_), "clFinish", true); }

  void flush_cache() override {
    if (!flush_buffer_) {
      flush_bytes_ = std::clamp<std::size_t>(2 * static_cast<std::size_t>(info_.l2_bytes), kFlushMin, kFlushMax);
      flush_bytes_ = std::min(flush_bytes_, max_alloc_) / 4 * 4;
      cl_int status = CL_SUCCESS;
      flush_buffer_ = clCreateBuffer(context_, CL_MEM_READ_WRITE, flush_bytes_, nullptr, &status);
      check(status, "clCreateBuffer(flush)");
    }
    const cl_uint value = ++flush_value_;
    check(clEnqueueFillBuffer(queue_, flush_buffer_, &value, sizeof(value), 0, flush_bytes_, 0,
                              nullptr, nullptr),
          "clEnqueueFillBuffer(flush)");
  }

  double measure_copy_bandwidth() override {
    const std::size_t bytes = std::min({kBandwidthBytes, max_alloc_,
                                        static_cast<std::size_t>(info_.global_mem_bytes / 8)});
    cl_int status = CL_SUCCESS;
    cl_mem source = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    check(status, "clCreateBuffer(bandwidth)");
    cl_mem target = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status != CL_SUCCESS) {
      clReleaseMemObject(source);
      check(status, "clCreateBuffer(bandwidth)");
    }
    try {
      const double gbps = time_copies(source, target, bytes);
      clReleaseMemObject(source);
      clReleaseMemObject(target);
      return gbps;
    } catch (...) {
      clReleaseMemObject(source);
      clReleaseMemObject(target);
      throw;
    }
  }

 private:
  static void release(const Buffer& buffer) {
    clReleaseMemObject(buffer.user);
    clReleaseMemObject(buffer.whole);
  }
  static void release(const Kernel& kernel) {
    clReleaseKernel(kernel.kernel);
    clReleaseProgram(kernel.program);
  }

  Buffer& find_buffer(BufferId id) { return find_by_id(buffers_, id, "buffer"); }
  const Buffer& checked_buffer(BufferId id, std::size_t bytes, const char* what) {
    return require_fits(find_buffer(id), id, bytes, what);
  }
  Kernel& find_kernel(KernelId id) { return find_by_id(kernels_, id, "kernel"); }

  // Canaries into both guards; zeros for the kernel's part, so results are deterministic.
  void fill_guards_and_zero(const Buffer& buffer) {
    const auto canary = guard_canary(buffer.guard);
    check(clEnqueueWriteBuffer(queue_, buffer.whole, CL_TRUE, 0, buffer.guard, canary.data(), 0,
                               nullptr, nullptr),
          "clEnqueueWriteBuffer(guard)", true);
    check(clEnqueueWriteBuffer(queue_, buffer.whole, CL_TRUE, buffer.guard + buffer.span,
                               buffer.guard, canary.data(), 0, nullptr, nullptr),
          "clEnqueueWriteBuffer(guard)", true);
    const cl_uchar zero = 0;
    check(clEnqueueFillBuffer(queue_, buffer.user, &zero, sizeof(zero), 0, buffer.span, 0, nullptr,
                              nullptr),
          "clEnqueueFillBuffer(zero)");
    check(clFinish(queue_), "clFinish", true);
  }

  void read_whole(const Buffer& buffer, std::size_t offset, std::vector<std::uint8_t>& out) {
    check(clEnqueueReadBuffer(queue_, buffer.whole, CL_TRUE, offset, out.size(), out.data(), 0,
                              nullptr, nullptr),
          "clEnqueueReadBuffer(guard)", true);
  }

  cl_program program_from_source(const std::string& payload) {
    const auto parsed = nlohmann::json::parse(payload, nullptr, false);
    if (!parsed.is_object() || !(parsed.contains("source_b64") || parsed.contains("source")))
      throw DeviceError("load: malformed opencl-source payload", false);
    const std::string source = parsed.contains("source_b64")
                                   ? base64_decode(parsed.at("source_b64").get<std::string>())
                                   : parsed.at("source").get<std::string>();
    const std::string options = parsed.value("options", std::string());
    const char* text = source.c_str();
    const std::size_t length = source.size();
    cl_int status = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(context_, 1, &text, &length, &status);
    check(status, "clCreateProgramWithSource");
    const cl_int built = clBuildProgram(program, 1, &ref_.device, options.c_str(), nullptr, nullptr);
    if (built != CL_SUCCESS) {
      clReleaseProgram(program);
      check(built, "clBuildProgram(source)");
    }
    return program;
  }

  cl_program program_from_binary(const std::string& binary) {
    const auto* data = reinterpret_cast<const unsigned char*>(binary.data());
    const std::size_t size = binary.size();
    cl_int binary_status = CL_SUCCESS, status = CL_SUCCESS;
    cl_program program =
        clCreateProgramWithBinary(context_, 1, &ref_.device, &size, &data, &binary_status, &status);
    check(status, "clCreateProgramWithBinary");
    // A binary still has to be "built" (finalized for the device) before kernels exist.
    const cl_int built = clBuildProgram(program, 1, &ref_.device, "", nullptr, nullptr);
    if (built != CL_SUCCESS || binary_status != CL_SUCCESS) {
      clReleaseProgram(program);
      check(built != CL_SUCCESS ? built : binary_status, "clBuildProgram(binary)");
    }
    return program;
  }

  void set_arguments(const Kernel& kernel, const std::vector<KernelArg>& args) {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const KernelArg& arg = args[i];
      const auto index = static_cast<cl_uint>(i);
      const std::string call = "clSetKernelArg(" + std::to_string(i) + ")";
      switch (arg.kind) {
        case KernelArg::Kind::Buffer: {
          const cl_mem memory = find_buffer(arg.buffer).user;
          check(clSetKernelArg(kernel.kernel, index, sizeof(memory), &memory), call.c_str());
          break;
        }
        case KernelArg::Kind::I32: {
          const auto value = static_cast<cl_int>(arg.i);
          check(clSetKernelArg(kernel.kernel, index, sizeof(value), &value), call.c_str());
          break;
        }
        case KernelArg::Kind::I64: {
          const auto value = static_cast<cl_long>(arg.i);
          check(clSetKernelArg(kernel.kernel, index, sizeof(value), &value), call.c_str());
          break;
        }
        case KernelArg::Kind::F32: {
          const auto value = static_cast<cl_float>(arg.f);
          check(clSetKernelArg(kernel.kernel, index, sizeof(value), &value), call.c_str());
          break;
        }
        case KernelArg::Kind::F64: {
          const auto value = static_cast<cl_double>(arg.f);
          check(clSetKernelArg(kernel.kernel, index, sizeof(value), &value), call.c_str());
          break;
        }
      }
    }
  }

  // global = grid x block work-items, local = block. Dynamic local memory would come as
  // __local kernel arguments, which KernelArg has no kind for, so shared_mem_bytes is unused.
  void enqueue(const Kernel& kernel, const std::vector<KernelArg>& args, const LaunchDims& dims,
               cl_event* event) {
    set_arguments(kernel, args);
    std::size_t global[3], local[3];
    for (int d = 0; d < 3; ++d) {
      if (dims.grid[d] < 1 || dims.block[d] < 1)
        throw DeviceError("launch: grid and block dimensions must be >= 1", false);
      local[d] = static_cast<std::size_t>(dims.block[d]);
      global[d] = static_cast<std::size_t>(dims.grid[d]) * local[d];
    }
    check(clEnqueueNDRangeKernel(queue_, kernel.kernel, 3, nullptr, global, local, 0, nullptr, event),
          "clEnqueueNDRangeKernel");
  }

  double time_copies(cl_mem source, cl_mem target, std::size_t bytes) {
    std::vector<double> ms;
    for (int repeat = 0; repeat <= kBandwidthRepeats; ++repeat) {  // the first is a warm-up
      cl_event event = nullptr;
      check(clEnqueueCopyBuffer(queue_, source, target, 0, 0, bytes, 0, nullptr, &event),
            "clEnqueueCopyBuffer");
      const double elapsed = finish_event(event);
      if (repeat > 0) ms.push_back(elapsed);
    }
    return 2.0 * static_cast<double>(bytes) / (median(ms) * 1e-3) / 1e9;
  }

  DeviceRef ref_;
  DeviceInfo info_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::size_t guard_ = kGuardBytes;
  std::size_t max_alloc_ = 0;
  std::map<BufferId, Buffer> buffers_;
  std::map<KernelId, Kernel> kernels_;
  BufferId next_buffer_ = 0;
  KernelId next_kernel_ = 0;
  cl_mem flush_buffer_ = nullptr;
  std::size_t flush_bytes_ = 0;
  cl_uint flush_value_ = 0;
};

}  // namespace

std::unique_ptr<Device> open_device(int index) { return std::make_unique<OpenClDevice>(index); }

}  // namespace kforge::opencl
