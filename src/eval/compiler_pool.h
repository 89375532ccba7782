// The sandboxed compiler: a pool of persistent `kforge-worker --compile-only` processes, one
// per compile thread, each with a wall-clock timeout per compile and an address-space limit.
// Generated source is compiled only here, never in the orchestrator: a compiler that crashes
// (a 65536-deep macro expression overflows clang's stack), hangs or eats memory on it costs
// one worker, which is replaced, and the candidate gets a compile error saying which.
// Persistent processes keep the cost per compile to a pipe round trip: the toolchain (OpenCL
// platform, NVRTC) is initialised once per worker, not once per compile.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

#include "backend/backend.h"
#include "eval/worker_process.h"

namespace kforge {

struct CompilerLimits {
  double timeout_s = 60;                              // per compile
  std::int64_t memory_bytes = std::int64_t{4} << 30;  // RLIMIT_AS of each compile worker
  std::int64_t stack_bytes = 0;                       // RLIMIT_STACK; 0 = inherited (8 MiB usually)
};

class CompilerPool {
 public:
  CompilerPool(std::filesystem::path executable, Language language, int device_index, WorkerLimits worker_limits,
               CompilerLimits limits, unsigned size);
  ~CompilerPool();
  CompilerPool(const CompilerPool&) = delete;
  CompilerPool& operator=(const CompilerPool&) = delete;

  // Compiles in an idle worker (starting one if the pool is not full, else waiting). A crash,
  // timeout or the memory limit is a failed CompileResult whose log is one line ("compiler
  // crashed (signal 11)", "compile timed out after 60 s", "compiler ran out of memory (limit
  // 4 GiB)") and `cacheable` false. Thread-safe. Throws EnvironmentError when a worker cannot
  // start (no platform or device, missing kforge-worker): the environment, not the candidate.
  CompileResult compile(const CompileRequest& request, const CompileTarget& target, bool& cacheable);

  // Starts one worker now, so an environment failure surfaces once, before compile threads.
  void start_one();

  const CompilerLimits& limits() const { return limits_; }

 private:
  WorkerProcess& acquire();
  void release(WorkerProcess& worker);
  static void start(WorkerProcess& worker);

  std::filesystem::path executable_;
  Language language_;
  int device_index_;
  WorkerLimits worker_limits_;
  CompilerLimits limits_;
  unsigned size_;
  std::mutex mutex_;
  std::condition_variable idle_changed_;
  std::vector<std::unique_ptr<WorkerProcess>> workers_;
  std::vector<WorkerProcess*> idle_;
};

// The defaults, overridden by KFORGE_COMPILE_TIMEOUT_S, KFORGE_COMPILE_MEMORY_MB and
// KFORGE_COMPILE_STACK_KB (tests and machines whose compiler legitimately needs more).
CompilerLimits compiler_limits_from_env();

// "4 GiB", "512 MiB": how limits are written in messages.
std::string bytes_text(std::int64_t bytes);

}  // namespace kforge
