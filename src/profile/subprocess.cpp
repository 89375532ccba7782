#include "profile/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace kforge {
namespace {
using Clock = std::chrono::steady_clock;

[[noreturn]] void exec_child(const std::vector<std::string>& argv, int output_fd) {
  ::setpgid(0, 0);
  sigset_t none;  // kforge blocks SIGINT/SIGTERM for its signal thread; exec would keep that
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGPIPE, SIG_DFL);
  ::dup2(output_fd, STDOUT_FILENO);
  ::dup2(output_fd, STDERR_FILENO);
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  ::_exit(127);
}

int wait_status_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Reads until the pipe closes or the deadline passes; true when it closed in time.
bool drain_until(int fd, Clock::time_point deadline, std::string& output) {
  char buffer[8192];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd poller{fd, POLLIN, 0};
    const int ready = ::poll(&poller, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    output.append(buffer, static_cast<std::size_t>(n));
  }
}
}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, double timeout_s) {
  CommandResult result;
  if (argv.empty()) {
    result.error = "empty command";
    return result;
  }
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    result.error = std::string("fork: ") + std::strerror(errno);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return result;
  }
  if (pid == 0) exec_child(argv, pipe_fds[1]);
  ::close(pipe_fds[1]);
  const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000));
  const bool closed = drain_until(pipe_fds[0], deadline, result.output);
  if (!closed) {
    result.timed_out = true;
    ::kill(-pid, SIGKILL);
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = wait_status_code(status);
  result.started = result.exit_code != 127 || result.timed_out;
  if (!result.started) result.error = argv[0] + ": cannot execute (not found or not executable)";
  return result;
}

std::optional<std::filesystem::path> find_executable(const std::string& name,
                                                     const std::vector<std::filesystem::path>& extra_dirs) {
  auto executable = [](const std::filesystem::path& path) {
    std::error_code error;
    return std::filesystem::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos)
    return executable(name) ? std::optional<std::filesystem::path>(name) : std::nullopt;
  std::vector<std::filesystem::path> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream entries(path);
    std::string entry;
    while (std::getline(entries, entry, ':'))
      if (!entry.empty()) dirs.emplace_back(entry);
  }
  dirs.insert(dirs.end(), extra_dirs.begin(), extra_dirs.end());
  for (const auto& dir : dirs)
    if (executable(dir / name)) return dir / name;
  return std::nullopt;
}

}  // namespace kforge
