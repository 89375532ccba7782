#if KFORGE_HAVE_CUDA_HEADERS
#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "backend/cuda/cuda_api.h"
#include "backend/cuda/cuda_internal.h"
#include "backend/device_tables.h"
#include "backend/guard.h"

namespace kforge::cuda {
namespace {

// Kernels may use this much dynamic shared memory without opting in.
constexpr std::int64_t kDefaultDynamicSharedLimit = 48 * 1024;
constexpr std::size_t kBandwidthBytes = std::size_t{256} << 20;
constexpr int kBandwidthRepeats = 7;

struct Buffer {
  CUdeviceptr base = 0;  // start of the head guard
  std::size_t bytes = 0;
  CUdeviceptr user() const { return base + kGuardBytes; }
};

struct Kernel {
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  std::int64_t dynamic_shared_limit = kDefaultDynamicSharedLimit;
};

unsigned int to_dim(std::int64_t value, const char* what) {
  if (value < 1 || value > std::numeric_limits<unsigned int>::max())
    throw DeviceError(std::string("launch: ") + what + " dimension " + std::to_string(value) +
                          " out of range",
                      false);
  return static_cast<unsigned int>(value);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(int index) : info_(query_device_info(index)) {
    CUdevice device = 0;
    check(api().cuDeviceGet_(&device, index), "cuDeviceGet");
    check(api().cuDevicePrimaryCtxRetain_(&context_, device), "cuDevicePrimaryCtxRetain");
    device_ = device;
    bind();
    // A blocking stream: it orders with the legacy stream that cuMemcpyHtoD/DtoH use, so an
    // upload is complete before a launch and a launch before a download.
    check(api().cuStreamCreate_(&stream_, CU_STREAM_DEFAULT), "cuStreamCreate");
    check(api().cuEventCreate_(&start_, CU_EVENT_DEFAULT), "cuEventCreate");
    check(api().cuEventCreate_(&stop_, CU_EVENT_DEFAULT), "cuEventCreate");
  }

  // Best effort: after a sticky error every call fails, and the process is about to go anyway.
  ~CudaDevice() override {
    if (api().cuCtxSetCurrent_(context_) != CUDA_SUCCESS) return;
    for (auto& [id, kernel] : kernels_) api().cuModuleUnload_(kernel.module);
    for (auto& [id, buffer] : buffers_) api().cuMemFree_(buffer.base);
    if (flush_buffer_) api().cuMemFree_(flush_buffer_);
    if (start_) api().cuEventDestroy_(start_);
    if (stop_) api().cuEventDestroy_(stop_);
    if (stream_) api().cuStreamDestroy_(stream_);
    api().cuDevicePrimaryCtxRelease_(device_);
  }

  const DeviceInfo& info() const override { return info_; }

  BufferId alloc(std::size_t bytes) override {
    bind();
    Buffer buffer;
    buffer.bytes = bytes;
    check(api().cuMemAlloc_(&buffer.base, bytes + 2 * kGuardBytes), "cuMemAlloc");
    const BufferId id = next_buffer_++;
    buffers_[id] = buffer;
    const auto canary = guard_canary(kGuardBytes);
    check(api().cuMemcpyHtoD_(buffer.base, canary.data(), kGuardBytes), "cuMemcpyHtoD(guard)");
    check(api().cuMemcpyHtoD_(buffer.user() + bytes, canary.data(), kGuardBytes),
          "cuMemcpyHtoD(guard)");
    // Deterministic contents: an output the kernel forgets to write reads as zeros every run.
    zero_fill(buffer);
    return id;
  }

  void free(BufferId id) override {
    bind();
    const Buffer buffer = find_buffer(id);
    buffers_.erase(id);
    check(api().cuMemFree_(buffer.base), "cuMemFree");
  }

  void upload(BufferId id, const void* host, std::size_t bytes) override {
    bind();
    const Buffer& buffer = checked_buffer(id, bytes, "upload");
    if (bytes) check(api().cuMemcpyHtoD_(buffer.user(), host, bytes), "cuMemcpyHtoD");
  }

  void download(BufferId id, void* host, std::size_t bytes) override {
    bind();
    const Buffer& buffer = checked_buffer(id, bytes, "download");
    if (bytes) check(api().cuMemcpyDtoH_(host, buffer.user(), bytes), "cuMemcpyDtoH");
  }

  void fill(BufferId id, std::uint8_t value) override {
    bind();
    const Buffer& buffer = find_buffer(id);
    if (buffer.bytes) check(api().cuMemsetD8Async_(buffer.user(), value, buffer.bytes, stream_), "cuMemsetD8Async");
  }

  bool guards_intact(BufferId id) override {
    bind();
    const Buffer& buffer = find_buffer(id);
    const auto canary = guard_canary(kGuardBytes);
    std::vector<std::uint8_t> head(kGuardBytes), tail(kGuardBytes);
    check(api().cuMemcpyDtoH_(head.data(), buffer.base, kGuardBytes), "cuMemcpyDtoH(guard)");
    check(api().cuMemcpyDtoH_(tail.data(), buffer.user() + buffer.bytes, kGuardBytes),
          "cuMemcpyDtoH(guard)");
    return head == canary && tail == canary;
  }

  KernelId load(const CompileResult& compiled, const std::string& kernel) override {
    bind();
    if (!compiled.ok) throw DeviceError("load: the compile failed", false);
    if (compiled.binary_format != "cubin" && compiled.binary_format != "ptx")
      throw DeviceError("load: CUDA cannot load a '" + compiled.binary_format + "' binary", false);
    Kernel loaded;
    // A PTX image must be NUL-terminated; std::string guarantees that.
    check(api().cuModuleLoadData_(&loaded.module, compiled.binary.c_str()), "cuModuleLoadData");
    const std::string symbol = symbol_for(compiled, kernel);
    const CUresult found = api().cuModuleGetFunction_(&loaded.function, loaded.module, symbol.c_str());
    if (found != CUDA_SUCCESS) {
      api().cuModuleUnload_(loaded.module);
      check(found, ("cuModuleGetFunction(" + symbol + ")").c_str());
    }
    const KernelId id = next_kernel_++;
    kernels_[id] = loaded;
    return id;
  }

  void launch(KernelId id, const std::vector<KernelArg>& args, const LaunchDims& dims) override {
    bind();
    enqueue(find_kernel(id), args, dims);
  }

  double launch_timed(KernelId id, const std::vector<KernelArg>& args,
                      const LaunchDims& dims) override {
    bind();
    Kernel& kernel = find_kernel(id);
    check(api().cuEventRecord_(start_, stream_), "cuEventRecord");
    enqueue(kernel, args, dims);
    check(api().cuEventRecord_(stop_, stream_), "cuEventRecord");
    return elapsed_ms();
  }

  void synchronize() override {
    bind();
    check(api().cuCtxSynchronize_(), "cuCtxSynchronize");
  }

  void flush_cache() override {
    bind();
    if (!flush_buffer_) {
      // Twice the L2, so nothing the next kernel reads can still be resident.
      flush_bytes_ = std::max<std::size_t>(2 * static_cast<std::size_t>(info_.l2_bytes), 8 << 20);
      check(api().cuMemAlloc_(&flush_buffer_, flush_bytes_), "cuMemAlloc(flush)");
    }
    check(api().cuMemsetD32Async_(flush_buffer_, ++flush_value_, flush_bytes_ / 4, stream_),
          "cuMemsetD32Async(flush)");
  }

  double measure_copy_bandwidth() override {
    bind();
    const std::size_t bytes =
        std::min(kBandwidthBytes, static_cast<std::size_t>(info_.global_mem_bytes / 8));
    CUdeviceptr source = 0, target = 0;
    check(api().cuMemAlloc_(&source, bytes), "cuMemAlloc(bandwidth)");
    const CUresult second = api().cuMemAlloc_(&target, bytes);
    if (second != CUDA_SUCCESS) {
      api().cuMemFree_(source);
      check(second, "cuMemAlloc(bandwidth)");
    }
    try {
      const double gbps = time_copies(source, target, bytes);
      free_pair(source, target);
      return gbps;
    } catch (...) {
      free_pair(source, target);
      throw;
    }
  }

 private:
  static const Driver& api() { return driver(); }

  // The context is current per thread; a worker may call from a watchdog or helper thread.
  void bind() { check(api().cuCtxSetCurrent_(context_), "cuCtxSetCurrent"); }

  Buffer& find_buffer(BufferId id) { return find_by_id(buffers_, id, "buffer"); }
  const Buffer& checked_buffer(BufferId id, std::size_t bytes, const char* what) {
    return require_fits(find_buffer(id), id, bytes, what);
  }
  Kernel& find_kernel(KernelId id) { return find_by_id(kernels_, id, "kernel"); }

  void zero_fill(const Buffer& buffer) {
    if (buffer.bytes) check(api().cuMemsetD8_(buffer.user(), 0, buffer.bytes), "cuMemsetD8");
  }

  // The lowered (mangled) name when loading the kernel that was compiled; otherwise the name
  // as given, which works for extern "C" kernels and already-mangled symbols.
  static std::string symbol_for(const CompileResult& compiled, const std::string& kernel) {
    if (!compiled.lowered_name.empty() && (kernel == compiled.kernel || kernel.empty()))
      return compiled.lowered_name;
    return kernel;
  }

  // Parameter values in 8-byte slots, pointed to by the array cuLaunchKernel reads.
  std::vector<std::uint64_t> pack_arguments(const std::vector<KernelArg>& args) {
    std::vector<std::uint64_t> slots(args.size(), 0);
    for (std::size_t i = 0; i < args.size(); ++i) {
      const KernelArg& arg = args[i];
      void* slot = &slots[i];
      switch (arg.kind) {
        case KernelArg::Kind::Buffer: {
          const CUdeviceptr pointer = find_buffer(arg.buffer).user();
          std::memcpy(slot, &pointer, sizeof(pointer));
          break;
        }
        case KernelArg::Kind::I32: {
          const auto value = static_cast<std::int32_t>(arg.i);
          std::memcpy(slot, &value, sizeof(value));
          break;
        }
        case KernelArg::Kind::I64:
          std::memcpy(slot, &arg.i, sizeof(arg.i));
          break;
        case KernelArg::Kind::F32: {
          const auto value = static_cast<float>(arg.f);
          std::memcpy(slot, &value, sizeof(value));
          break;
        }
        case KernelArg::Kind::F64:
          std::memcpy(slot, &arg.f, sizeof(arg.f));
          break;
      }
    }
    return slots;
  }

  // Dynamic shared memory above 48 KiB needs a per-function opt-in.
  void allow_dynamic_shared(Kernel& kernel, std::int64_t bytes) {
    if (bytes <= kernel.dynamic_shared_limit) return;
    check(api().cuFuncSetAttribute_(kernel.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    static_cast<int>(bytes)),
          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    kernel.dynamic_shared_limit = bytes;
  }

  void enqueue(Kernel& kernel, const std::vector<KernelArg>& args, const LaunchDims& dims) {
    if (dims.shared_mem_bytes < 0 || dims.shared_mem_bytes > std::numeric_limits<int>::max())
      throw DeviceError("launch: shared_mem_bytes out of range", false);
    allow_dynamic_shared(kernel, dims.shared_mem_bytes);
    auto slots = pack_arguments(args);
    std::vector<void*> params(slots.size());
    for (std::size_t i = 0; i < slots.size(); ++i) params[i] = &slots[i];
    check(api().cuLaunchKernel_(kernel.function, to_dim(dims.grid[0], "grid"),
                                to_dim(dims.grid[1], "grid"), to_dim(dims.grid[2], "grid"),
                                to_dim(dims.block[0], "block"), to_dim(dims.block[1], "block"),
                                to_dim(dims.block[2], "block"),
                                static_cast<unsigned int>(dims.shared_mem_bytes), stream_,
                                params.empty() ? nullptr : params.data(), nullptr),
          "cuLaunchKernel");
  }

  double elapsed_ms() {
    check(api().cuEventSynchronize_(stop_), "cuEventSynchronize");
    float ms = 0;
    check(api().cuEventElapsedTime_(&ms, start_, stop_), "cuEventElapsedTime");
    return ms;
  }

  // Median of several timed device-to-device copies, in GB/s counting read + write.
  double time_copies(CUdeviceptr source, CUdeviceptr target, std::size_t bytes) {
    check(api().cuMemcpyDtoDAsync_(target, source, bytes, stream_), "cuMemcpyDtoDAsync");  // warm-up
    std::vector<double> ms;
    for (int repeat = 0; repeat < kBandwidthRepeats; ++repeat) {
      check(api().cuEventRecord_(start_, stream_), "cuEventRecord");
      check(api().cuMemcpyDtoDAsync_(target, source, bytes, stream_), "cuMemcpyDtoDAsync");
      check(api().cuEventRecord_(stop_, stream_), "cuEventRecord");
      ms.push_back(elapsed_ms());
    }
    return 2.0 * static_cast<double>(bytes) / (median(ms) * 1e-3) / 1e9;
  }

  void free_pair(CUdeviceptr first, CUdeviceptr second) {
    api().cuStreamSynchronize_(stream_);
    api().cuMemFree_(first);
    api().cuMemFree_(second);
  }

  DeviceInfo info_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  CUevent start_ = nullptr, stop_ = nullptr;
  std::map<BufferId, Buffer> buffers_;
  std::map<KernelId, Kernel> kernels_;
  BufferId next_buffer_ = 0;
  KernelId next_kernel_ = 0;
  CUdeviceptr flush_buffer_ = 0;
  std::size_t flush_bytes_ = 0;
  unsigned int flush_value_ = 0;
};

}  // namespace

std::unique_ptr<Device> open_device(int index) { return std::make_unique<CudaDevice>(index); }

}  // namespace kforge::cuda
#endif  // KFORGE_HAVE_CUDA_HEADERS
