#include "eval/sandbox.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <linux/securebits.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "util/secrets.h"

extern char** environ;

namespace kforge {
namespace fs = std::filesystem;
namespace {

// ---- async-signal-safe helpers for the child ----

void write_text(int fd, const char* text) {
  if (fd < 0) return;
  const ssize_t ignored = ::write(fd, text, std::strlen(text));
  (void)ignored;
}

void write_number(int fd, long value) {
  char digits[24];
  int n = 0;
  const bool negative = value < 0;
  unsigned long magnitude = negative ? static_cast<unsigned long>(-value) : static_cast<unsigned long>(value);
  do {
    digits[n++] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude > 0 && n < 22);
  char text[26];
  int at = 0;
  if (negative) text[at++] = '-';
  while (n > 0) text[at++] = digits[--n];
  text[at] = 0;
  write_text(fd, text);
}

// "sandbox: WHAT WHERE: errno N" on the error pipe, then exit 126 (the spawn reports it).
[[noreturn]] void fail(int fd, const char* what, const char* where = "") {
  const int saved = errno;
  write_text(fd, "sandbox: ");
  write_text(fd, what);
  if (*where) {
    write_text(fd, " ");
    write_text(fd, where);
  }
  write_text(fd, ": errno ");
  write_number(fd, saved);
  write_text(fd, " (");
  write_text(fd, strerrorname_np(saved) ? strerrorname_np(saved) : "?");
  write_text(fd, ")\n");
  ::_exit(126);
}

bool drop_all_capabilities(int last_capability) {
  // No root magic on exec, no setuid fix-ups, and locked so the worker cannot undo it.
  if (::prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED) != 0)
    return false;
  for (int cap = 0; cap <= last_capability; ++cap)
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) return false;
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  return ::syscall(SYS_capset, &header, data) == 0;
}

// ---- parent-side probing ----

std::string read_first_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

bool write_string(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

std::string unescape_mount_path(const std::string& escaped) {
  std::string result;
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    if (escaped[i] == '\\' && i + 3 < escaped.size()) {
      const std::string octal = escaped.substr(i + 1, 3);
      if (octal.size() == 3 && std::all_of(octal.begin(), octal.end(), [](char c) { return c >= '0' && c <= '7'; })) {
        result += static_cast<char>(std::stoi(octal, nullptr, 8));
        i += 3;
        continue;
      }
    }
    result += escaped[i];
  }
  return result;
}

struct MountPoint {
  std::string path;
  unsigned long flags = 0;
};

// Every mount of this mount namespace, from /proc/self/mountinfo, with its per-mount flags.
std::vector<MountPoint> current_mounts() {
  std::vector<MountPoint> mounts;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, parent, device, root, point, options;
    if (!(fields >> id >> parent >> device >> root >> point >> options)) continue;
    MountPoint mount{unescape_mount_path(point), 0};
    std::stringstream flags(options);
    std::string flag;
    while (std::getline(flags, flag, ',')) {
      if (flag == "nosuid") mount.flags |= MS_NOSUID;
      else if (flag == "nodev") mount.flags |= MS_NODEV;
      else if (flag == "noexec") mount.flags |= MS_NOEXEC;
      else if (flag == "noatime") mount.flags |= MS_NOATIME;
      else if (flag == "nodiratime") mount.flags |= MS_NODIRATIME;
      else if (flag == "relatime") mount.flags |= MS_RELATIME;
    }
    mounts.push_back(mount);
  }
  return mounts;
}

bool under(const std::string& path, const std::string& root) {
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                          (root.back() == '/' || path[root.size()] == '/'));
}

int last_capability() {
  const std::string text = read_first_line("/proc/sys/kernel/cap_last_cap");
  try {
    return text.empty() ? 40 : std::stoi(text);
  } catch (const std::exception&) {
    return 40;
  }
}

// Bits the probe child reports through its exit code.
enum ProbeBit : int { kMountNs = 1, kPidNs = 2, kNetNs = 4, kCaps = 8, kProc = 16, kReadOnly = 32 };

int probe_namespaces() {
  const pid_t child = ::fork();
  if (child < 0) return 0;
  if (child == 0) {
    int bits = 0;
    if (::unshare(CLONE_NEWNET) == 0) bits |= kNetNs;
    if (::unshare(CLONE_NEWNS) == 0 && ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0) {
      bits |= kMountNs;
      if (::mount(nullptr, "/", nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) == 0) bits |= kReadOnly;
      if (::unshare(CLONE_NEWPID) == 0) {
        const pid_t init = ::fork();
        if (init == 0) {
          const bool ok = ::getpid() == 1 &&
                          ::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0;
          ::_exit(ok ? 0 : 1);
        }
        int status = 0;
        if (init > 0 && ::waitpid(init, &status, 0) == init && WIFEXITED(status)) {
          bits |= kPidNs;
          if (WEXITSTATUS(status) == 0) bits |= kProc;
        }
      }
    }
    if (::prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN) == 1 && ::prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN) == 0) bits |= kCaps;
    ::_exit(bits);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 0;
}

// A pids cgroup hierarchy we may make groups in: cgroup v1's pids mount, or a v2 root with
// the pids controller. Returns the reason when there is none.
fs::path find_pids_cgroup_root(std::string& why) {
  std::error_code error;
  std::vector<fs::path> candidates;
  if (fs::exists("/sys/fs/cgroup/pids/cgroup.procs", error)) candidates.emplace_back("/sys/fs/cgroup/pids");
  if (read_first_line("/sys/fs/cgroup/cgroup.controllers").find("pids") != std::string::npos)
    candidates.emplace_back("/sys/fs/cgroup");
  if (candidates.empty()) {
    why = "no pids cgroup controller mounted (neither /sys/fs/cgroup/pids nor cgroup v2 with pids)";
    return {};
  }
  for (const auto& root : candidates) {
    const fs::path trial = root / ("kforge-probe-" + std::to_string(::getpid()));
    fs::create_directory(trial, error);
    if (error) {
      why = "cannot make a cgroup under " + root.string() + ": " + error.message();
      continue;
    }
    const bool limited = fs::exists(trial / "pids.max") && write_string(trial / "pids.max", "64");
    ::rmdir(trial.c_str());
    if (limited) return root;
    why = "cgroup " + root.string() + " has no writable pids.max";
  }
  return {};
}

SandboxSupport probe_support() {
  SandboxSupport support;
  const bool root = ::geteuid() == 0;
  const int bits = probe_namespaces();
  support.mount_namespace = (bits & kMountNs) && (bits & kReadOnly);
  support.pid_namespace = (bits & kPidNs) && (bits & kProc) && support.mount_namespace;
  support.net_namespace = bits & kNetNs;
  support.drop_capabilities = bits & kCaps;
  std::string cgroup_why;
  support.pids_cgroup_root = find_pids_cgroup_root(cgroup_why);
  const std::string privilege = root ? "" : " (not running as root)";
  support.mechanisms = {
      {"environment", true, "allowlist: PATH, locale, GPU runtime, Python and non-secret KFORGE_* variables; "
                            "no variable that looks like a key, token, secret or password; HOME and caches in "
                            "the worker's folder"},
      {"filesystem", support.mount_namespace,
       support.mount_namespace ? "own mount namespace: every mount read-only except the worker's temp folder "
                                 "and a private /dev/shm"
                               : "unshare(CLONE_NEWNS) or a read-only remount is refused" + privilege +
                                     ": the worker can write wherever the user can"},
      {"pid_namespace", support.pid_namespace,
       support.pid_namespace ? "own PID namespace and /proc: other processes and their environ are invisible; "
                               "every descendant dies with the worker"
                             : "unshare(CLONE_NEWPID) or mounting /proc is refused" + privilege +
                                   ": the worker sees every process, and only its process group is killed"},
      {"process_limit", !support.pids_cgroup_root.empty(),
       !support.pids_cgroup_root.empty()
           ? "cgroup pids.max = " + std::to_string(default_max_processes()) + " per worker (" +
                 support.pids_cgroup_root.string() + "); leftovers are killed and counted"
           : cgroup_why + privilege + ": no limit on processes (RLIMIT_NPROC does not bind root)"},
      {"network", support.net_namespace,
       support.net_namespace ? "own network namespace: no interfaces but loopback"
                             : "unshare(CLONE_NEWNET) is refused" + privilege + ": the worker has the host network"},
      {"capabilities", support.drop_capabilities,
       support.drop_capabilities ? "all capabilities dropped (bounding set, securebits): root in the worker cannot "
                                   "remount, unmount or leave its cgroup"
                                 : "cannot drop capabilities (no CAP_SETPCAP)"},
  };
  return support;
}

bool allowed_name(const std::string& name) {
  static const std::set<std::string> exact = {
      "PATH", "LANG", "LANGUAGE", "TZ", "TERM", "NO_COLOR", "LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONHOME",
      "VIRTUAL_ENV", "PYTHONUNBUFFERED", "PYTHONHASHSEED", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
      "OPENBLAS_NUM_THREADS", "SSL_CERT_FILE", "SSL_CERT_DIR"};
  static const char* const prefixes[] = {"LC_",    "CUDA_",   "NVIDIA_", "NV_",     "__NV",     "OCL_",
                                         "OPENCL_", "POCL_",  "ROCM_",   "HIP_",    "HSA_",     "ROCR_",
                                         "GPU_",   "AMD_",    "HCC_",    "TRITON_", "TORCH_",   "TORCHINDUCTOR_",
                                         "PYTORCH_", "CUBLAS", "CUDNN_",  "KFORGE_"};
  if (exact.count(name)) return true;
  for (const char* prefix : prefixes)
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

const SandboxSupport& sandbox_support() {
  static const SandboxSupport support = probe_support();
  return support;
}

int default_max_processes() {
  const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  return 256 + 8 * static_cast<int>(cpus);
}

std::vector<std::string> sandbox_environment(const fs::path& folder) {
  const std::vector<std::string> secrets = configured_secrets();
  // Set by the sandbox itself: the worker's own folder for everything that writes.
  const std::string base = folder.string();
  const std::vector<std::pair<std::string, std::string>> forced = {
      {"HOME", base},
      {"TMPDIR", base},
      {"XDG_CACHE_HOME", base + "/.cache"},
      {"KFORGE_CACHE_DIR", base + "/.cache/kforge"},
      {"TRITON_CACHE_DIR", base + "/.cache/triton"},
      {"CUDA_CACHE_PATH", base + "/.cache/nv"},
      {"POCL_CACHE_DIR", base + "/.cache/pocl"},
      {"PYTHONDONTWRITEBYTECODE", "1"}};
  std::vector<std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string variable(*entry);
    const auto equals = variable.find('=');
    if (equals == std::string::npos) continue;
    const std::string name = variable.substr(0, equals);
    const std::string value = variable.substr(equals + 1);
    if (!allowed_name(name) || looks_like_secret_name(name)) continue;
    if (std::any_of(forced.begin(), forced.end(), [&](const auto& f) { return f.first == name; })) continue;
    const bool holds_secret = std::any_of(secrets.begin(), secrets.end(), [&](const std::string& secret) {
      return value.find(secret) != std::string::npos;
    });
    if (!holds_secret) env.push_back(variable);
  }
  for (const auto& [name, value] : forced) env.push_back(name + "=" + value);
  return env;
}

// ---- ProcessCgroup ----

bool ProcessCgroup::create(int limit) {
  remove();
  const fs::path root = sandbox_support().pids_cgroup_root;
  if (root.empty()) return false;
  static std::atomic<int> counter{0};
  std::error_code error;
  // Groups of kforge processes that died without cleaning up: remove the empty ones.
  for (const auto& entry : fs::directory_iterator(root, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("kforge-", 0) != 0 || name.rfind("kforge-probe-", 0) == 0) continue;
    const auto dash = name.find('-', 7);
    const std::string owner = name.substr(7, dash == std::string::npos ? std::string::npos : dash - 7);
    if (owner.empty() || fs::exists("/proc/" + owner)) continue;
    ::rmdir(entry.path().c_str());  // fails harmlessly while processes are still inside
  }
  const fs::path dir = root / ("kforge-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  if (!fs::create_directory(dir, error) || error) return false;
  if (!write_string(dir / "pids.max", std::to_string(limit > 0 ? limit : default_max_processes()))) {
    ::rmdir(dir.c_str());
    return false;
  }
  dir_ = dir;
  return true;
}

std::vector<pid_t> ProcessCgroup::processes() const {
  std::vector<pid_t> pids;
  if (dir_.empty()) return pids;
  std::ifstream in(dir_ / "cgroup.procs");
  long pid = 0;
  while (in >> pid) pids.push_back(static_cast<pid_t>(pid));
  return pids;
}

int ProcessCgroup::kill_all() {
  std::set<pid_t> killed;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    const std::vector<pid_t> pids = processes();
    if (pids.empty()) break;
    for (const pid_t pid : pids) {
      ::kill(pid, SIGKILL);
      killed.insert(pid);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return static_cast<int>(killed.size());
}

long ProcessCgroup::fork_refusals() const {
  if (dir_.empty()) return 0;
  std::ifstream in(dir_ / "pids.events");
  std::string key;
  long count = 0;
  while (in >> key >> count)
    if (key == "max") return count;
  return 0;
}

void ProcessCgroup::remove() {
  if (dir_.empty()) return;
  kill_all();
  for (int attempt = 0; attempt < 100 && ::rmdir(dir_.c_str()) != 0 && errno == EBUSY; ++attempt)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  dir_.clear();
}

// ---- SandboxLaunch ----

SandboxLaunch::SandboxLaunch(std::vector<std::string> argv, fs::path folder, const SandboxPolicy& policy,
                             std::string cgroup_procs_file)
    : argv_(std::move(argv)), folder_(folder.string()), cgroup_procs_(std::move(cgroup_procs_file)) {
  const SandboxSupport& support = sandbox_support();
  env_ = sandbox_environment(folder);
  mount_namespace_ = support.mount_namespace && (policy.read_only_filesystem || policy.own_pid_namespace);
  read_only_ = mount_namespace_ && policy.read_only_filesystem;
  pid_namespace_ = support.pid_namespace && policy.own_pid_namespace;
  net_namespace_ = support.net_namespace && policy.isolate_network;
  drop_capabilities_ = support.drop_capabilities && policy.drop_capabilities;
  last_capability_ = last_capability();
  // Tells the Python worker its runners are already inside this PID namespace and read-only
  // view (kforge_confine.py): a nested namespace without capabilities breaks thread creation.
  if (pid_namespace_ && read_only_) env_.push_back("KFORGE_SANDBOXED=1");
  if (read_only_) {
    for (const MountPoint& mount : current_mounts()) {
      // /proc is replaced by the namespace's own; the folder stays writable.
      if (pid_namespace_ && under(mount.path, "/proc")) continue;
      if (under(mount.path, folder_)) continue;
      mount_points_.push_back(mount.path);
      mount_flags_.push_back(mount.flags);
    }
  }
  for (auto& word : argv_) argv_ptrs_.push_back(word.data());
  argv_ptrs_.push_back(nullptr);
  for (auto& variable : env_) env_ptrs_.push_back(variable.data());
  env_ptrs_.push_back(nullptr);
}

bool SandboxLaunch::remount(int error_fd) const {
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) fail(error_fd, "make mounts private");
  if (!read_only_) return true;
  // The folder becomes a mount of its own first, so it stays writable when / turns read-only.
  if (::mount(folder_.c_str(), folder_.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0)
    fail(error_fd, "bind the worker folder", folder_.c_str());
  for (std::size_t i = 0; i < mount_points_.size(); ++i) {
    const char* point = mount_points_[i].c_str();
    if (::mount(nullptr, point, nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | mount_flags_[i], nullptr) == 0) continue;
    // Mounts that vanished or are hidden under another mount cannot be reached either.
    if (errno == ENOENT || errno == EINVAL || errno == EACCES) continue;
    fail(error_fd, "remount read-only", point);
  }
  // A private, empty /dev/shm: POSIX shared memory works, and nothing written there outlives us.
  ::mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=50%");
  return true;
}

void SandboxLaunch::run_worker(int error_fd) const {
  if (::chdir(folder_.c_str()) != 0) fail(error_fd, "chdir", folder_.c_str());
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  if (drop_capabilities_ && !drop_all_capabilities(last_capability_)) fail(error_fd, "drop capabilities");
  // Descriptors kforge opened without O_CLOEXEC (a run.db, a lock) must not reach the worker.
  ::syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC);
  ::execvpe(argv_ptrs_[0], argv_ptrs_.data(), env_ptrs_.data());
  fail(error_fd, "exec", argv_ptrs_[0]);
}

void SandboxLaunch::run_init(int error_fd, int status_fd) const {
  // PID 1 of the namespace: when it ends, the kernel kills everything else inside.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  remount(error_fd);
  if (::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
    fail(error_fd, "mount the namespace's /proc");
  const pid_t worker = ::fork();
  if (worker < 0) fail(error_fd, "fork the worker");
  if (worker == 0) run_worker(error_fd);
  ::close(error_fd);
  // Reap everything (orphans are re-parented here) until the worker itself ends.
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(-1, &status, 0);
    if (done == worker) {
      const ssize_t ignored = ::write(status_fd, &status, sizeof status);
      (void)ignored;
      ::_exit(0);
    }
    if (done < 0 && errno != EINTR) ::_exit(0);
  }
}

void SandboxLaunch::exec_in_child(int error_fd) const {
  // kforge blocks SIGINT/SIGTERM (a thread waits for them) and ignores SIGPIPE; both would
  // survive exec, so the worker starts with a clean signal state.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGPIPE, SIG_DFL);
  // The stub and the init never exec, so O_CLOEXEC does not protect kforge's descriptors
  // from them (a run.lock held open would outlive kforge): close all but stdio and error_fd.
  if (error_fd > 3) ::syscall(SYS_close_range, 3u, static_cast<unsigned>(error_fd - 1), 0u);
  ::syscall(SYS_close_range, static_cast<unsigned>(error_fd + 1), ~0u, 0u);
  if (!cgroup_procs_.empty()) {
    const int fd = ::open(cgroup_procs_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || ::write(fd, "0", 1) != 1) fail(error_fd, "join the cgroup", cgroup_procs_.c_str());
    ::close(fd);
  }
  if (net_namespace_ && ::unshare(CLONE_NEWNET) != 0) fail(error_fd, "unshare the network namespace");
  if (mount_namespace_ && ::unshare(CLONE_NEWNS) != 0) fail(error_fd, "unshare the mount namespace");
  if (!pid_namespace_) {
    if (mount_namespace_) remount(error_fd);
    run_worker(error_fd);
  }
  if (::unshare(CLONE_NEWPID) != 0) fail(error_fd, "unshare the PID namespace");
  int status_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) fail(error_fd, "pipe");
  const pid_t init = ::fork();
  if (init < 0) fail(error_fd, "fork the namespace's init");
  if (init == 0) {
    ::close(status_pipe[0]);
    run_init(error_fd, status_pipe[1]);
  }
  // This process stays outside the namespace as the orchestrator's child and ends the way
  // the worker ended, so kforge's "killed by signal N" / "exited with code N" stay true.
  ::close(error_fd);
  ::close(status_pipe[1]);
  const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd >= 0) {
    ::dup2(null_fd, STDIN_FILENO);
    ::dup2(null_fd, STDOUT_FILENO);
  }
  int init_status = 0;
  while (::waitpid(init, &init_status, 0) < 0 && errno == EINTR) {
  }
  int worker_status = 0;
  if (::read(status_pipe[0], &worker_status, sizeof worker_status) != sizeof worker_status) worker_status = init_status;
  if (WIFSIGNALED(worker_status)) {
    const int signal_number = WTERMSIG(worker_status);
    ::signal(signal_number, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signal_number);
    ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
    ::kill(::getpid(), signal_number);
    ::_exit(128 + signal_number);
  }
  ::_exit(WIFEXITED(worker_status) ? WEXITSTATUS(worker_status) : 125);
}

}  // namespace kforge
