#include "eval/compiler_pool.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <thread>

#include "backend/compile_protocol.h"
#include "util/encoding.h"
#include "util/trace.h"

namespace kforge {

std::string bytes_text(std::int64_t bytes) {
  constexpr std::int64_t kGiB = std::int64_t{1} << 30, kMiB = std::int64_t{1} << 20;
  if (bytes >= kGiB && bytes % kGiB == 0) return std::to_string(bytes / kGiB) + " GiB";
  return std::to_string(bytes / kMiB) + " MiB";
}

CompilerLimits compiler_limits_from_env() {
  CompilerLimits limits;
  const auto number = [](const char* name) -> std::optional<double> {
    const char* text = std::getenv(name);
    if (!text || !*text) return std::nullopt;
    char* end = nullptr;
    const double value = std::strtod(text, &end);
    if (end == text || *end != '\0' || !(value > 0))
      throw std::runtime_error(std::string(name) + "=" + text + ": expected a positive number");
    return value;
  };
  if (const auto seconds = number("KFORGE_COMPILE_TIMEOUT_S")) limits.timeout_s = *seconds;
  if (const auto mib = number("KFORGE_COMPILE_MEMORY_MB")) limits.memory_bytes = static_cast<std::int64_t>(*mib * (1 << 20));
  if (const auto kib = number("KFORGE_COMPILE_STACK_KB")) limits.stack_bytes = static_cast<std::int64_t>(*kib * 1024);
  return limits;
}

CompilerPool::CompilerPool(std::filesystem::path executable, Language language, int device_index,
                           WorkerLimits worker_limits, CompilerLimits limits, unsigned size)
    : executable_(std::move(executable)),
      language_(language),
      device_index_(device_index),
      worker_limits_(worker_limits),
      limits_(limits),
      size_(size > 0 ? size : std::max(1u, std::thread::hardware_concurrency())) {
  worker_limits_.memory_bytes = limits_.memory_bytes;
  worker_limits_.stack_bytes = limits_.stack_bytes;
}

CompilerPool::~CompilerPool() = default;  // each WorkerProcess stops its process

void CompilerPool::start(WorkerProcess& worker) {
  try {
    worker.ensure_started();
  } catch (const std::exception& e) {
    throw EnvironmentError(std::string("the sandboxed compiler cannot start: ") + e.what());
  }
}

void CompilerPool::start_one() {
  WorkerProcess& worker = acquire();
  try {
    start(worker);
  } catch (...) {
    release(worker);
    throw;
  }
  release(worker);
}

WorkerProcess& CompilerPool::acquire() {
  std::unique_lock lock(mutex_);
  idle_changed_.wait(lock, [&] { return !idle_.empty() || workers_.size() < size_; });
  if (!idle_.empty()) {
    WorkerProcess* worker = idle_.back();
    idle_.pop_back();
    return *worker;
  }
  workers_.push_back(std::make_unique<WorkerProcess>(executable_, language_, device_index_, worker_limits_,
                                                     WorkerRole::Compile));
  return *workers_.back();
}

void CompilerPool::release(WorkerProcess& worker) {
  {
    std::lock_guard lock(mutex_);
    idle_.push_back(&worker);
  }
  idle_changed_.notify_one();
}

CompileResult CompilerPool::compile(const CompileRequest& request, const CompileTarget& target, bool& cacheable) {
  WorkerProcess& worker = acquire();
  struct Release {
    CompilerPool& pool;
    WorkerProcess& worker;
    ~Release() { pool.release(worker); }
  } release_on_exit{*this, worker};
  start(worker);

  TraceScope trace("compile (worker)");
  const WorkerReply reply = worker.request(compile_request_json(request, target), limits_.timeout_s);
  CompileResult result;
  result.kernel = request.kernel;
  cacheable = false;  // a verdict of the sandbox (crash, limit) may not repeat: never remembered
  switch (reply.kind) {
    case WorkerReply::Kind::Ok:
      result = compile_result_from_json(reply.body.at("result"));
      result.failure = CompileFailure::None;
      result.log = valid_utf8(result.log);
      cacheable = true;
      return result;
    case WorkerReply::Kind::TimedOut:  // request() has killed the worker's process group
      result.failure = CompileFailure::TimedOut;
      result.log = "compile timed out after " + std::to_string(static_cast<int>(limits_.timeout_s)) + " s";
      return result;
    case WorkerReply::Kind::Crashed:
      result.failure = CompileFailure::Crashed;
      result.log = reply.signal ? "compiler crashed (signal " + std::to_string(reply.signal) + ")"
                                : "compiler crashed (" + reply.message + ")";
      return result;
    case WorkerReply::Kind::OutOfMemory:
      worker.kill();  // it has exited; the next compile starts a fresh one
      result.failure = CompileFailure::OutOfMemory;
      result.log = "compiler ran out of memory (limit " + bytes_text(limits_.memory_bytes) + ")";
      return result;
    case WorkerReply::Kind::Error:
      result.failure = CompileFailure::WorkerError;
      result.log = "kforge: compile worker: " + valid_utf8(reply.message);
      return result;
  }
  return result;
}

}  // namespace kforge
