#include "eval/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "backend/python/python_env.h"
#include "util/trace.h"

namespace kforge {
namespace {
using Clock = std::chrono::steady_clock;

void set_limit(int resource, rlim_t value) {
  rlimit limit{value, value};
  ::setrlimit(resource, &limit);  // best effort: a limit the system refuses is not fatal
}

void write_all(int fd, const std::string& data) {
  std::size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(std::string("write to worker failed: ") + std::strerror(errno));
    written += static_cast<std::size_t>(n);
  }
}
}  // namespace

std::filesystem::path WorkerProcess::default_executable() {
  if (const char* env = std::getenv("KFORGE_WORKER"); env && *env) return env;
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const auto beside = self.parent_path() / "kforge-worker";
    if (std::filesystem::exists(beside)) return beside;
  }
  return "kforge-worker";
}

WorkerProcess::WorkerProcess(std::filesystem::path executable, Language language, int device_index,
                             WorkerLimits limits, WorkerRole role)
    : executable_(std::move(executable)),
      language_(language),
      device_index_(device_index),
      limits_(limits),
      role_(role) {
  ::signal(SIGPIPE, SIG_IGN);  // a dead worker must surface as an error, not kill us
}

WorkerProcess::~WorkerProcess() { stop(); }

void WorkerProcess::spawn() {
  char pattern[] = "/tmp/kforge-worker-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("cannot create worker temp folder in /tmp");
  sandbox_dir_ = pattern;
  int to_child[2], from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  // Triton and PyTorch tasks run in the Python worker, which speaks the same protocol.
  std::vector<std::string> command =
      is_python_language(language_)
          ? python_worker_command(language_, device_index_)
          : std::vector<std::string>{executable_.string(), "--backend", to_string(language_), "--device",
                                     std::to_string(device_index_)};
  if (role_ == WorkerRole::Compile) command.push_back("--compile-only");
  std::vector<char*> argv;
  for (const auto& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);  // own process group: a timeout kills everything the worker started
    ::dup2(to_child[0], STDIN_FILENO);
    ::dup2(from_child[1], STDOUT_FILENO);
    if (::chdir(sandbox_dir_.c_str()) != 0) ::_exit(126);
    ::setenv("TMPDIR", sandbox_dir_.c_str(), 1);
    set_limit(RLIMIT_CORE, 0);
    set_limit(RLIMIT_FSIZE, static_cast<rlim_t>(limits_.file_size_bytes));
    if (limits_.memory_bytes > 0) set_limit(RLIMIT_AS, static_cast<rlim_t>(limits_.memory_bytes));
    if (limits_.stack_bytes > 0) set_limit(RLIMIT_STACK, static_cast<rlim_t>(limits_.stack_bytes));
    if (limits_.isolate_network) ::unshare(CLONE_NEWNET);  // fails harmlessly without privileges
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(to_child[0]);
  ::close(from_child[1]);
  pid_ = pid;
  to_worker_ = to_child[1];
  from_worker_ = from_child[0];
  buffer_.clear();
}

void WorkerProcess::ensure_started() {
  if (running()) return;
  TraceScope trace("worker start");
  spawn();
  std::string line;
  if (read_line(line, limits_.startup_timeout_s) != ReadOutcome::Line) {
    const std::string why = death_description();
    kill();
    throw std::runtime_error("worker " + executable_.string() + " did not start: " + why);
  }
  const auto hello = nlohmann::json::parse(line, nullptr, false);
  greeting_ = hello.is_discarded() ? nlohmann::json() : hello;
  if (hello.is_discarded() || !hello.value("ok", false)) {
    kill();
    throw std::runtime_error(hello.is_discarded() ? "worker sent a malformed greeting: " + line
                                                  : hello.value("error", std::string("worker failed to start")));
  }
}

WorkerProcess::ReadOutcome WorkerProcess::read_line(std::string& line, double timeout_s) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    if (const auto newline = buffer_.find('\n'); newline != std::string::npos) {
      line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return ReadOutcome::Line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return ReadOutcome::TimedOut;
    pollfd fd{from_worker_, POLLIN, 0};
    const int ready = ::poll(&fd, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) return ReadOutcome::Closed;
    if (ready <= 0) continue;
    char chunk[65536];
    const ssize_t n = ::read(from_worker_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ReadOutcome::Closed;  // EOF: the worker died
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

std::string WorkerProcess::death_description() {
  if (pid_ <= 0) return "not running";
  int status = 0;
  // Give a dying process a moment to be reaped so we can say how it died.
  for (int i = 0; i < 50; ++i) {
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      pid_ = -1;
      if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        last_signal_ = sig;
        return std::string("worker killed by signal ") + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
      }
      if (WIFEXITED(status)) return "worker exited with code " + std::to_string(WEXITSTATUS(status));
      return "worker ended";
    }
    ::usleep(10000);
  }
  return "worker closed its output";
}

WorkerReply WorkerProcess::request(const nlohmann::json& message, double timeout_s) {
  WorkerReply reply;
  last_signal_ = 0;
  try {
    ensure_started();
    write_all(to_worker_, message.dump() + "\n");
  } catch (const std::exception& e) {
    reply.kind = WorkerReply::Kind::Crashed;
    reply.message = e.what();
    kill();
    return reply;
  }
  std::string line;
  if (const ReadOutcome outcome = read_line(line, timeout_s); outcome != ReadOutcome::Line) {
    if (outcome == ReadOutcome::TimedOut) {
      reply.kind = WorkerReply::Kind::TimedOut;
      reply.message = "timed out after " + std::to_string(static_cast<int>(timeout_s)) + " s";
    } else {
      reply.kind = WorkerReply::Kind::Crashed;
      reply.message = death_description();
    }
    kill();
    return reply;
  }
  reply.body = nlohmann::json::parse(line, nullptr, false);
  if (reply.body.is_discarded()) {
    reply.kind = WorkerReply::Kind::Crashed;
    reply.message = "worker sent a malformed reply";
    kill();
    return reply;
  }
  if (!reply.body.value("ok", false)) {
    reply.kind = WorkerReply::Kind::Error;
    reply.message = reply.body.value("error", std::string("unknown worker error"));
    reply.context_lost = reply.body.value("context_lost", false);
    if (reply.context_lost) kill();
  }
  return reply;
}

void WorkerProcess::stop() {
  if (pid_ > 0) {
    try {
      write_all(to_worker_, "{\"op\":\"exit\"}\n");
    } catch (const std::exception&) {
    }
    for (int i = 0; i < 100 && pid_ > 0; ++i) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) pid_ = -1;
      else ::usleep(10000);
    }
  }
  kill();
}

void WorkerProcess::kill() {
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  if (to_worker_ >= 0) ::close(to_worker_);
  if (from_worker_ >= 0) ::close(from_worker_);
  to_worker_ = from_worker_ = -1;
  if (!sandbox_dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(sandbox_dir_, ignored);
    sandbox_dir_.clear();
  }
}

}  // namespace kforge
