// The seam between kforge and a GPU programming model. A new backend is one new folder under
// src/backend/ implementing Backend (orchestrator side: probe + compile) and Device (worker
// side: run), plus one line in registry.cpp keyed by its language; the language's facts
// (extensions, worker, profiler, ...) are its row in task/languages.h.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "task/task.h"

namespace kforge {

struct DeviceInfo {
  std::string backend;       // the backend's name(): "cuda", "opencl", "triton", "pytorch"
  std::string name;          // "NVIDIA H100 80GB HBM3", "pthread-skylake-avx512-..."
  std::string arch;          // "sm_90", or the OpenCL device version string
  std::string platform;      // OpenCL platform name; CUDA driver version
  int compute_units = 0;     // SMs / OpenCL compute units
  std::int64_t global_mem_bytes = 0;
  std::int64_t l2_bytes = 0;           // last-level cache the timing flush must evict
  std::int64_t shared_mem_per_block = 0;
  int max_threads_per_block = 0;
  int clock_mhz = 0;
  bool is_gpu = false;
};

struct Availability {
  bool usable = false;
  std::string reason;  // why not, or a short description of what was found
  std::vector<DeviceInfo> devices;
};

struct CompileRequest {
  Language language = Language::Cuda;
  std::string source;       // full kernel source text
  std::string source_name;  // file name used in diagnostics
  std::string kernel;       // entry point name
  std::vector<std::pair<std::string, std::string>> defines;  // -D NAME=VALUE (tunable params)
  std::vector<std::string> options;                          // extra compiler options
  std::vector<std::string> include_dirs;
  int device_index = 0;
  std::string includes_digest;  // content of every included task file (include_policy.h), for the cache key
};

// What a compile's output depends on besides the request: part of the compile cache key.
struct CompileTarget {
  std::string device;    // the exact target: OpenCL platform | device | version; CUDA "sm_90"
  std::string compiler;  // compiler and driver versions
  std::string arch;      // CUDA: the --gpu-architecture; OpenCL: the device name
};

// The environment cannot compile at all (no OpenCL platform or device, NVRTC missing, a
// compile worker that cannot start). Never a candidate's fault, so never its compile_error:
// commands stop with this one line and a non-zero exit.
struct EnvironmentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Why a compile gave no binary, as a value: the sandboxed compiler's own failures are told
// apart from the compiler rejecting the source (the log says which in words, for people).
enum class CompileFailure {
  None,         // compiled, or the compiler rejected the source (its diagnostics are in log)
  TimedOut,     // the compile worker ran past its time limit and was killed
  Crashed,      // the compile worker died (a signal, a malformed reply)
  OutOfMemory,  // the compile worker hit its address-space limit
  WorkerError,  // the compile worker answered with an error of its own
};

struct CompileResult {
  bool ok = false;
  CompileFailure failure = CompileFailure::None;
  std::string log;             // compiler diagnostics, kept even on success
  std::string binary;          // CUBIN/PTX for CUDA, program binary for OpenCL
  std::string binary_format;   // "cubin", "ptx", "opencl-binary"
  double seconds = 0;          // compile wall time (0 when served from the cache)
  bool cache_hit = false;
  int registers = -1;          // per thread, where the backend can tell
  int shared_bytes = -1;       // static shared memory per block
  int local_bytes = -1;        // local memory per thread (spills, stack)
  int spill_bytes = -1;        // spill stores+loads reported by the compiler
  int max_threads_per_block = -1;
  std::string key;             // content hash of source + options + device
  std::string kernel;          // entry point as requested (CompileRequest::kernel)
  std::string lowered_name;    // CUDA: the symbol NVRTC lowered `kernel` to (mangled C++ name)
  std::string arch;            // target the binary was built for: "sm_90", OpenCL device name
};

// Error raised by a Device call. `context_lost` means the device context can no longer be
// trusted (CUDA sticky errors such as an illegal address): the worker must be replaced.
struct DeviceError : std::runtime_error {
  DeviceError(const std::string& what, bool context_lost_)
      : std::runtime_error(what), context_lost(context_lost_) {}
  bool context_lost;
};

using BufferId = int;
using KernelId = int;

struct KernelArg {
  enum class Kind { Buffer, I32, I64, F32, F64 } kind = Kind::Buffer;
  BufferId buffer = -1;
  std::int64_t i = 0;
  double f = 0;
};

struct LaunchDims {
  std::array<std::int64_t, 3> grid{1, 1, 1};   // blocks / work-groups per dimension
  std::array<std::int64_t, 3> block{1, 1, 1};  // threads / work-items per block
  std::int64_t shared_mem_bytes = 0;
};

// A device opened inside a worker process. All calls throw DeviceError on failure.
class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceInfo& info() const = 0;

  // Buffers carry hidden guard zones before and after the `bytes` the kernel sees; the
  // guards are filled with a canary by `alloc` and checked by `guards_intact`.
  virtual BufferId alloc(std::size_t bytes) = 0;
  virtual void free(BufferId buffer) = 0;
  virtual void upload(BufferId buffer, const void* host, std::size_t bytes) = 0;
  virtual void download(BufferId buffer, void* host, std::size_t bytes) = 0;
  virtual bool guards_intact(BufferId buffer) = 0;
  // Sets every byte the kernel sees to `value`, on the device and queued in order with
  // launches (cuMemsetD8Async / clEnqueueFillBuffer): the timing loop re-poisons outputs
  // between timed launches without a host copy.
  virtual void fill(BufferId buffer, std::uint8_t value) = 0;

  virtual KernelId load(const CompileResult& compiled, const std::string& kernel) = 0;
  virtual void launch(KernelId kernel, const std::vector<KernelArg>& args, const LaunchDims& dims) = 0;
  // Launches once between device events (queue profiling on OpenCL); returns milliseconds.
  virtual double launch_timed(KernelId kernel, const std::vector<KernelArg>& args,
                              const LaunchDims& dims) = 0;
  // Waits for all work on the device, including work a kernel may have left on other streams.
  virtual void synchronize() = 0;
  // Evicts the last-level cache (writes a buffer larger than it) so the next launch starts cold.
  virtual void flush_cache() = 0;
  // Measured device-to-device copy bandwidth in GB/s (bytes read + bytes written).
  virtual double measure_copy_bandwidth() = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual Language language() const = 0;
  // Cheap probe for `kforge doctor`: libraries loadable, devices present. Never throws.
  virtual Availability probe() = 0;
  // Compiles in the calling process, through the compile cache. Thread-safe. Never executes
  // generated code, but runs the compiler on it: the orchestrator compiles through the
  // sandboxed compile workers instead (eval/compiler_pool.h); this is for tests and tools.
  virtual CompileResult compile(const CompileRequest& request) = 0;
  // Initialises the toolchain once (thread-safe: later calls are served from memory) and
  // describes device `device_index` for the cache key. Throws EnvironmentError.
  virtual CompileTarget compile_target(int device_index) {
    (void)device_index;
    return {name(), "", ""};
  }
  // What a compile worker does once, before its first request; throws EnvironmentError. By
  // default nothing: CUDA's orchestrator sends the architecture with each request, so the
  // compile worker never initialises the driver. OpenCL opens its platform and device here.
  virtual void prepare_compile_worker(int device_index) { (void)device_index; }
  // One compile without the cache, for `target`: what a compile worker runs for each request.
  virtual CompileResult compile_uncached(const CompileRequest& request, const CompileTarget& target) {
    (void)target;
    return compile(request);
  }
  // Opens a device; call only inside a worker process.
  virtual std::unique_ptr<Device> open_device(int device_index) = 0;
};

// Registry of compiled-in backends, keyed by language (registry.cpp).
bool has_backend(Language language);
// nullptr when no backend runs `language` in this build (HIP today).
std::unique_ptr<Backend> make_backend(Language language);
// Like make_backend, but a language without a backend is an EnvironmentError naming it and the
// backends there are.
std::unique_ptr<Backend> require_backend(Language language);
std::vector<std::unique_ptr<Backend>> all_backends();  // one of each, in registry order

}  // namespace kforge
