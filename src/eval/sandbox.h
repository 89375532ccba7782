// Containment for every process kforge starts to run untrusted code (the native and Python
// workers, compile helpers): a scrubbed environment, a filesystem that is read-only except
// the process's own temp folder, its own PID namespace and /proc (other processes, kforge's
// /proc/<pid>/environ included, are out of reach), no network, no capabilities, and a cgroup
// process limit, so a fork bomb costs one candidate and every descendant - setsid daemons
// included - dies with the worker. Each mechanism is probed once; what does not hold here is
// skipped and said (`kforge doctor`), never silently assumed.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace kforge {

// What a spawn asks for; each part is applied only where the system supports it.
struct SandboxPolicy {
  bool isolate_network = true;
  bool read_only_filesystem = true;  // everything read-only but the process's folder
  bool own_pid_namespace = true;     // own PIDs and /proc; the whole namespace dies with it
  bool drop_capabilities = true;     // root without capabilities cannot undo the above
  int max_processes = 0;             // cgroup pids.max; 0: default_max_processes()
};

// One isolation mechanism: whether it holds here, and how or why not.
struct IsolationMechanism {
  std::string name;    // "environment", "filesystem", "pid_namespace", "process_limit", "network", "capabilities"
  bool active = false;
  std::string detail;  // how it is done, or why it is not
};

// What this machine supports, probed once (forks a short-lived child) and cached.
struct SandboxSupport {
  bool mount_namespace = false;
  bool pid_namespace = false;
  bool net_namespace = false;
  bool drop_capabilities = false;
  std::filesystem::path pids_cgroup_root;  // where per-worker pids cgroups are made; empty: none
  std::vector<IsolationMechanism> mechanisms;  // for doctor, in a fixed order
};
const SandboxSupport& sandbox_support();

// Threads count as processes for the pids controller (PoCL and PyTorch start one per core).
int default_max_processes();

// The environment a sandboxed process gets: an allowlist (PATH, locale, GPU runtime and
// Python variables, non-secret KFORGE_*), nothing whose name looks like a credential or whose
// value is a configured secret; HOME, TMPDIR and caches point into `folder`.
std::vector<std::string> sandbox_environment(const std::filesystem::path& folder);

// A per-process pids cgroup: made before the spawn, emptied and removed after it.
class ProcessCgroup {
 public:
  ProcessCgroup() = default;
  ~ProcessCgroup() { remove(); }
  ProcessCgroup(const ProcessCgroup&) = delete;
  ProcessCgroup& operator=(const ProcessCgroup&) = delete;

  // Makes the group with pids.max = limit; false (and no group) where that is not possible.
  bool create(int limit);
  bool active() const { return !dir_.empty(); }
  const std::filesystem::path& dir() const { return dir_; }
  std::string procs_file() const { return (dir_ / "cgroup.procs").string(); }
  std::vector<pid_t> processes() const;
  // SIGKILLs every process in the group until it is empty (bounded wait); returns how many
  // distinct processes it killed.
  int kill_all();
  // How many times pids.max refused a fork.
  long fork_refusals() const;
  void remove();  // kill_all, then rmdir

 private:
  std::filesystem::path dir_;
};

}  // namespace kforge

namespace kforge {

// Everything the child of fork() needs to enter the sandbox, prepared before the fork so
// that the child makes only async-signal-safe calls (kforge has threads when it spawns).
class SandboxLaunch {
 public:
  SandboxLaunch(std::vector<std::string> argv, std::filesystem::path folder, const SandboxPolicy& policy,
                std::string cgroup_procs_file);
  // Called in the forked child, after its stdin/stdout/rlimits are set: joins the cgroup,
  // enters the namespaces, remounts, drops capabilities, execs. On failure it writes one line
  // saying why to error_fd and exits 126. Never returns.
  [[noreturn]] void exec_in_child(int error_fd) const;
  // The mechanisms this launch applies (for the worker's own report and the tests).
  bool uses_pid_namespace() const { return pid_namespace_; }

 private:
  [[noreturn]] void run_worker(int error_fd) const;
  [[noreturn]] void run_init(int error_fd, int status_fd) const;
  bool remount(int error_fd) const;

  std::vector<std::string> argv_;
  std::vector<std::string> env_;
  std::vector<char*> argv_ptrs_;
  std::vector<char*> env_ptrs_;
  std::string folder_;
  std::string cgroup_procs_;
  std::vector<std::string> mount_points_;   // remounted read-only
  std::vector<unsigned long> mount_flags_;  // their nosuid/nodev/noexec/atime flags
  bool mount_namespace_ = false;
  bool pid_namespace_ = false;
  bool net_namespace_ = false;
  bool read_only_ = false;
  bool drop_capabilities_ = false;
  int last_capability_ = 40;
};

}  // namespace kforge
