// Orchestrator's handle on one sandboxed worker process (see src/worker): spawns it with
// resource limits in its own process group and temp folder, inside the sandbox of
// eval/sandbox.h (scrubbed environment, read-only filesystem, own PID namespace, process
// limit), exchanges JSON lines with a wall-clock timeout, reports how it died when it does,
// and redacts configured secrets from everything it reads back.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <stdexcept>
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
  bool sandbox = true;               // filesystem, PID namespace, capabilities (eval/sandbox.h)
  int max_processes = 0;             // cgroup pids.max (threads count); 0: default_max_processes()
};

// What stopping a worker found: processes still alive besides the worker's own (daemons,
// fork-bomb children; all killed) and forks the process limit refused.
struct WorkerCleanup {
  int leftover_processes = 0;
  long fork_refusals = 0;
  std::string describe() const;  // "" when there was nothing to say
};

// The worker could not be started at all (missing binary, no device, broken driver): a fault of
// the environment, never of the candidate being evaluated, so it is thrown, not returned.
struct WorkerUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// How one request ended, as a value: callers decide a candidate's status from `kind`, never
// from the words in `message`.
struct WorkerReply {
  enum class Kind {
    Ok,
    Error,        // the worker answered {"ok":false, "error":...}
    Crashed,      // the worker died (signal or exit) or sent a malformed reply; it was killed
    TimedOut,     // no answer within the timeout; the worker's process group was killed
    OutOfMemory,  // the worker answered that it hit its memory limit ({"out_of_memory":true})
  } kind = Kind::Ok;
  nlohmann::json body;     // the worker's answer (Ok, Error, OutOfMemory)
  std::string message;     // what happened, in words (every kind but Ok)
  bool context_lost = false;
  int signal = 0;          // Crashed: the signal that ended the worker, else 0
};

// Run: opens the device, checks and times variants. Compile: `--compile-only`, opens no
// device and answers `compile` requests (the sandboxed compiler, eval/compiler_pool.h).
enum class WorkerRole { Run, Compile };

class ProcessCgroup;

class WorkerProcess {
 public:
  WorkerProcess(std::filesystem::path executable, Language language, int device_index, WorkerLimits limits,
                WorkerRole role = WorkerRole::Run);
  // Any other program speaking the protocol (e.g. a compile-only helper), same sandbox.
  WorkerProcess(std::vector<std::string> command, WorkerLimits limits);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Starts the worker if it is not running; throws WorkerUnavailable if it cannot start.
  void ensure_started();
  WorkerReply request(const nlohmann::json& message, double timeout_s);
  bool running() const { return pid_ > 0; }
  void stop();   // polite exit, then SIGKILL
  void kill();   // SIGKILL the whole process group at once
  pid_t pid() const { return pid_; }
  const std::filesystem::path& sandbox_dir() const { return sandbox_dir_; }
  // What the last kill()/stop() found and killed.
  const WorkerCleanup& last_cleanup() const { return last_cleanup_; }

  // For SIGINT/SIGTERM: SIGKILLs every live worker of this process (groups, namespaces,
  // cgroups) and removes their temp folders. Safe to call from any thread; the WorkerProcess
  // objects must not be used afterwards (the caller is about to exit).
  static void kill_all_live_workers();
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
  std::vector<std::string> command() const;
  void take_census();  // fills last_cleanup_ from the cgroup, before the kill

  std::filesystem::path executable_;
  Language language_;
  int device_index_;
  WorkerLimits limits_;
  WorkerRole role_ = WorkerRole::Run;
  nlohmann::json greeting_;
  int last_signal_ = 0;
  pid_t pid_ = -1;
  pid_t group_ = -1;  // the worker's process group, killed even after a polite exit
  int to_worker_ = -1;
  int from_worker_ = -1;
  std::string buffer_;
  std::filesystem::path sandbox_dir_;
  std::vector<std::string> explicit_command_;
  std::unique_ptr<ProcessCgroup> cgroup_;
  WorkerCleanup last_cleanup_;
  int own_processes_ = 1;  // processes of the worker itself in its cgroup
};

}  // namespace kforge
