// One writer per run folder: `kforge optimize` (and its --resume) holds an exclusive flock on
// <run folder>/run.lock for as long as it writes. A second writer gets a one-line refusal
// naming the folder and the holder's PID. The kernel drops the lock when the holder dies,
// SIGKILL included, so a resume after a crash never finds a stale lock.
#pragma once

#include <sys/types.h>

#include <filesystem>

namespace kforge {

class RunLock {
 public:
  static constexpr const char* kFileName = "run.lock";

  // Takes the lock or throws StoreError ("RUN: in use by another kforge process (pid N) ...").
  explicit RunLock(const std::filesystem::path& run_dir);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  // PID written in the lock file of a run (0 when none is readable); for messages.
  static pid_t holder(const std::filesystem::path& run_dir);

 private:
  int fd_ = -1;
};

}  // namespace kforge
