// Orchestrator's handle on one sandboxed worker process (see src/worker): spawns it with
// resource limits in its own process group and temp folder, exchanges JSON lines with a
// wall-clock timeout, and reports how it died when it does.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "task/task.h"

namespace kforge {

struct WorkerLimits {
  double startup_timeout_s = 60;
  std::int64_t memory_bytes = 0;     // RLIMIT_AS; 0 = unlimited (CUDA reserves huge address ranges)
  std::int64_t file_size_bytes = std::int64_t{1} << 30;
  std::int64_t stack_bytes = 0;      // RLIMIT_STACK of the main thread; 0 = inherited
  bool isolate_network = true;       // own network namespace where the system allows it
};

struct WorkerReply {
  enum class Kind { Ok, Error, Crashed, TimedOut } kind = Kind::Ok;
  nlohmann::json body;     // the worker's answer (Ok, Error)
  std::string message;     // what happened, in words (Error, Crashed, TimedOut)
  bool context_lost = false;
};

// Run: opens the device, checks and times variants. Compile: `--compile-only`, opens no
// device and answers `compile` requests (the sandboxed compiler, eval/compiler_pool.h).
enum class WorkerRole { Run, Compile };

class WorkerProcess {
 public:
  WorkerProcess(std::filesystem::path executable, Language language, int device_index, WorkerLimits limits,
                WorkerRole role = WorkerRole::Run);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Starts the worker if it is not running; throws std::runtime_error if it cannot start.
  void ensure_started();
  WorkerReply request(const nlohmann::json& message, double timeout_s);
  bool running() const { return pid_ > 0; }
  void stop();   // polite exit, then SIGKILL
  void kill();   // SIGKILL the whole process group at once
  pid_t pid() const { return pid_; }
  const std::filesystem::path& sandbox_dir() const { return sandbox_dir_; }
  // The last start-up greeting, also when it refused to start ({"ok":false,"error":...}).
  const nlohmann::json& greeting() const { return greeting_; }
  // The signal that ended the last worker that died of one, else 0.
  int last_signal() const { return last_signal_; }

  // Path of kforge-worker: $KFORGE_WORKER, else beside the running executable.
  static std::filesystem::path default_executable();

 private:
  enum class ReadOutcome { Line, Closed, TimedOut };
  ReadOutcome read_line(std::string& line, double timeout_s);
  std::string death_description();
  void spawn();

  std::filesystem::path executable_;
  Language language_;
  int device_index_;
  WorkerLimits limits_;
  WorkerRole role_ = WorkerRole::Run;
  nlohmann::json greeting_;
  int last_signal_ = 0;
  pid_t pid_ = -1;
  int to_worker_ = -1;
  int from_worker_ = -1;
  std::string buffer_;
  std::filesystem::path sandbox_dir_;
};

}  // namespace kforge
