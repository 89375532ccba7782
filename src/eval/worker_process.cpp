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

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>

#include "backend/python/python_env.h"
#include "eval/sandbox.h"
#include "util/secrets.h"
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

// Every live worker of this process, for kill_all_live_workers() (interrupts).
struct LiveWorker {
  pid_t pid = -1;
  std::filesystem::path folder;
  std::filesystem::path cgroup;
};
std::mutex g_live_mutex;
std::map<const void*, LiveWorker> g_live;

void register_live(const void* owner, LiveWorker worker) {
  std::lock_guard lock(g_live_mutex);
  g_live[owner] = std::move(worker);
}
void unregister_live(const void* owner) {
  std::lock_guard lock(g_live_mutex);
  g_live.erase(owner);
}
}  // namespace

std::string WorkerCleanup::describe() const {
  std::string text;
  if (leftover_processes > 0)
    text += std::to_string(leftover_processes) + " leftover process" + (leftover_processes == 1 ? "" : "es") +
            " killed";
  if (fork_refusals > 0)
    text += (text.empty() ? "" : "; ") + std::to_string(fork_refusals) + " fork" + (fork_refusals == 1 ? "" : "s") +
            " refused by the process limit";
  return text;
}

void WorkerProcess::kill_all_live_workers() {
  std::lock_guard lock(g_live_mutex);
  for (auto& [owner, worker] : g_live) {
    if (worker.pid > 0) {
      ::kill(-worker.pid, SIGKILL);
      ::kill(worker.pid, SIGKILL);
    }
  }
  for (auto& [owner, worker] : g_live) {
    if (worker.pid > 0) ::waitpid(worker.pid, nullptr, 0);
    if (!worker.cgroup.empty()) {
      // Whatever escaped the group (a setsid daemon without a PID namespace) dies here.
      for (int round = 0; round < 1000; ++round) {
        std::ifstream procs(worker.cgroup / "cgroup.procs");
        long pid = 0;
        bool any = false;
        while (procs >> pid) {
          ::kill(static_cast<pid_t>(pid), SIGKILL);
          any = true;
        }
        if (!any) break;
        ::usleep(2000);
      }
      ::rmdir(worker.cgroup.c_str());
    }
    std::error_code ignored;
    if (!worker.folder.empty()) std::filesystem::remove_all(worker.folder, ignored);
  }
  g_live.clear();
}

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

WorkerProcess::WorkerProcess(std::vector<std::string> command, WorkerLimits limits)
    : executable_(command.empty() ? std::filesystem::path() : std::filesystem::path(command.front())),
      language_(Language::OpenCL),
      device_index_(0),
      limits_(limits),
      explicit_command_(std::move(command)) {
  ::signal(SIGPIPE, SIG_IGN);
}

WorkerProcess::~WorkerProcess() { stop(); }

std::vector<std::string> WorkerProcess::command() const {
  if (!explicit_command_.empty()) return explicit_command_;
  // Triton and PyTorch tasks run in the Python worker, which speaks the same protocol.
  if (is_python_language(language_)) return python_worker_command(language_, device_index_);
  std::vector<std::string> words{executable_.string(), "--backend", to_string(language_), "--device",
                                 std::to_string(device_index_)};
  if (role_ == WorkerRole::Compile) words.push_back("--compile-only");
  return words;
}

void WorkerProcess::spawn() {
  char pattern[] = "/tmp/kforge-worker-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("cannot create worker temp folder in /tmp");
  sandbox_dir_ = pattern;
  int to_child[2], from_child[2], setup_error[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0 ||
      ::pipe2(setup_error, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  SandboxPolicy policy;
  policy.isolate_network = limits_.isolate_network;
  policy.read_only_filesystem = policy.own_pid_namespace = policy.drop_capabilities = limits_.sandbox;
  policy.max_processes = limits_.max_processes;
  cgroup_ = std::make_unique<ProcessCgroup>();
  if (limits_.sandbox) cgroup_->create(limits_.max_processes);
  // Prepared here: after fork() the child may only make async-signal-safe calls.
  const SandboxLaunch launch(command(), sandbox_dir_, policy, cgroup_->active() ? cgroup_->procs_file() : "");
  own_processes_ = launch.uses_pid_namespace() ? 3 : 1;
  last_cleanup_ = {};
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);  // own process group: a timeout kills everything the worker started
    ::dup2(to_child[0], STDIN_FILENO);
    ::dup2(from_child[1], STDOUT_FILENO);
    set_limit(RLIMIT_CORE, 0);
    set_limit(RLIMIT_FSIZE, static_cast<rlim_t>(limits_.file_size_bytes));
    if (limits_.memory_bytes > 0) set_limit(RLIMIT_AS, static_cast<rlim_t>(limits_.memory_bytes));
    if (limits_.stack_bytes > 0) set_limit(RLIMIT_STACK, static_cast<rlim_t>(limits_.stack_bytes));
    launch.exec_in_child(setup_error[1]);
  }
  ::setpgid(pid, pid);
  ::close(to_child[0]);
  ::close(from_child[1]);
  ::close(setup_error[1]);
  pid_ = pid;
  group_ = pid;
  to_worker_ = to_child[1];
  from_worker_ = from_child[0];
  buffer_.clear();
  register_live(this, {pid_, sandbox_dir_, cgroup_->active() ? cgroup_->dir() : std::filesystem::path()});
  // The error pipe closes when the worker execs (or when setup fails, after saying why).
  std::string setup_failure;
  char chunk[512];
  for (ssize_t n; (n = ::read(setup_error[0], chunk, sizeof chunk)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    setup_failure.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(setup_error[0]);
  if (!setup_failure.empty()) {
    kill();
    while (!setup_failure.empty() && setup_failure.back() == '\n') setup_failure.pop_back();
    throw std::runtime_error("worker " + executable_.string() + " could not enter its sandbox: " + setup_failure);
  }
}

void WorkerProcess::ensure_started() {
  if (running()) return;
  TraceScope trace("worker start");
  spawn();
  std::string line;
  if (read_line(line, limits_.startup_timeout_s) != ReadOutcome::Line) {
    const std::string why = death_description();
    kill();
    throw WorkerUnavailable("worker " + executable_.string() + " did not start: " + why);
  }
  const auto hello = nlohmann::json::parse(redact_secrets(line), nullptr, false);
  greeting_ = hello.is_discarded() ? nlohmann::json() : hello;
  if (hello.is_discarded() || !hello.value("ok", false)) {
    kill();
    throw WorkerUnavailable(hello.is_discarded() ? "worker sent a malformed greeting: " + redact_secrets(line)
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
  ensure_started();  // WorkerUnavailable propagates: no candidate is to blame
  try {
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
      reply.signal = last_signal_;
    }
    kill();
    if (const std::string cleanup = last_cleanup_.describe(); !cleanup.empty()) reply.message += " (" + cleanup + ")";
    return reply;
  }
  // Text from the sandbox: a candidate that learnt a key must not get it stored or sent on.
  reply.body = nlohmann::json::parse(redact_secrets(std::move(line)), nullptr, false);
  if (reply.body.is_discarded()) {
    reply.kind = WorkerReply::Kind::Crashed;
    reply.message = "worker sent a malformed reply";
    kill();
    return reply;
  }
  reply.body = redact_secrets_json(std::move(reply.body));
  if (!reply.body.value("ok", false)) {
    reply.kind = reply.body.value("out_of_memory", false) ? WorkerReply::Kind::OutOfMemory : WorkerReply::Kind::Error;
    reply.message = reply.body.value("error", std::string("unknown worker error"));
    reply.context_lost = reply.body.value("context_lost", false);
    if (reply.context_lost) kill();
  }
  return reply;
}

void WorkerProcess::take_census() {
  if (!cgroup_ || !cgroup_->active()) return;
  last_cleanup_.leftover_processes =
      std::max(0, static_cast<int>(cgroup_->processes().size()) - own_processes_);
  last_cleanup_.fork_refusals = cgroup_->fork_refusals();
}

void WorkerProcess::stop() {
  if (pid_ > 0) {
    take_census();
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
    // Count what is alive besides the worker's own processes (itself, and with a PID
    // namespace its outside stub and the namespace's init) before everything dies.
    take_census();
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  // A worker that exited politely may have left children in its group: they go too.
  if (group_ > 0) ::kill(-group_, SIGKILL);
  group_ = -1;
  if (cgroup_) cgroup_->remove();  // kills anything that left the process group
  if (to_worker_ >= 0) ::close(to_worker_);
  if (from_worker_ >= 0) ::close(from_worker_);
  to_worker_ = from_worker_ = -1;
  if (!sandbox_dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(sandbox_dir_, ignored);
    sandbox_dir_.clear();
  }
  unregister_live(this);
}

}  // namespace kforge
