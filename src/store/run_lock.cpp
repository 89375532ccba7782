#include "store/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "store/store_error.h"

namespace kforge {

RunLock::RunLock(const std::filesystem::path& run_dir) {
  const auto path = run_dir / kFileName;
  // O_CLOEXEC: a worker must not inherit (and so prolong) the lock.
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw StoreError(run_dir.string() + ": cannot open " + path.string() + " (" + std::strerror(errno) + ")");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd_);
    fd_ = -1;
    if (error == EWOULDBLOCK) {
      const pid_t pid = holder(run_dir);
      throw StoreError(run_dir.string() + ": in use by another kforge process" +
                       (pid > 0 ? " (pid " + std::to_string(pid) + ")" : std::string()) +
                       "; wait for it to finish or stop it, then resume");
    }
    throw StoreError(run_dir.string() + ": cannot lock " + path.string() + " (" + std::strerror(error) + ")");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) {
    const ssize_t ignored = ::pwrite(fd_, pid.data(), pid.size(), 0);
    (void)ignored;
  }
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

pid_t RunLock::holder(const std::filesystem::path& run_dir) {
  std::ifstream in(run_dir / kFileName);
  long pid = 0;
  in >> pid;
  return static_cast<pid_t>(pid);
}

}  // namespace kforge
