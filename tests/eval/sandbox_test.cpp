// The sandbox the real spawn builds, looked at from inside the worker ("sandbox" request),
// and the rule that generated code is never mapped into the orchestrator.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <signal.h>
#include <sys/wait.h>
#include <vector>
#include <sstream>
#include <string>

#include "backend/backend.h"
#include "eval/evaluator.h"
#include "eval/sandbox.h"
#include "eval/worker_process.h"
#include "util/secrets.h"

namespace kforge {
namespace {
using nlohmann::json;

std::filesystem::path worker_path() {
  const char* worker = std::getenv("KFORGE_WORKER");
  return worker ? std::filesystem::path(worker) : std::filesystem::path(KFORGE_BINARY_DIR) / "bin/kforge-worker";
}

bool opencl_usable(std::string& why) {
  const Availability availability = make_backend(Language::OpenCL)->probe();
  why = availability.reason;
  return availability.usable;
}

// A listening TCP socket on 127.0.0.1 (any port); closes on destruction.
struct Listener {
  int fd = -1;
  int port = 0;
  Listener() {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd, 4) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
      return;
    port = ntohs(address.sin_port);
  }
  ~Listener() {
    if (fd >= 0) ::close(fd);
  }
};

std::string own_net_namespace() {
  std::error_code error;
  return std::filesystem::read_symlink("/proc/self/ns/net", error).string();
}

json sandbox_from_inside(WorkerProcess& worker, int port) {
  const WorkerReply reply = worker.request({{"op", "sandbox"}, {"connect_port", port}}, 60);
  EXPECT_EQ(reply.kind, WorkerReply::Kind::Ok) << reply.message;
  return reply.body;
}

TEST(Sandbox, WorkerRunsInItsOwnFolderGroupAndLimits) {
  std::string why;
  if (!opencl_usable(why)) GTEST_SKIP() << "no OpenCL device: " << why;
  WorkerLimits limits;
  limits.memory_bytes = std::int64_t{16} << 30;
  limits.file_size_bytes = std::int64_t{64} << 20;
  WorkerProcess worker(worker_path(), Language::OpenCL, 0, limits);
  Listener listener;
  ASSERT_GT(listener.port, 0);
  const json inside = sandbox_from_inside(worker, listener.port);
  std::cout << "[ sandbox ] " << inside.dump() << "\n";
  const auto folder = worker.sandbox_dir();
  EXPECT_EQ(inside.value("cwd", ""), folder.string());
  EXPECT_EQ(inside.value("tmpdir", ""), folder.string());
  EXPECT_NE(folder.string().find("kforge-worker-"), std::string::npos);
  if (sandbox_support().pid_namespace) {
    // Inside its own PID namespace: the namespace's init is 1, the worker 2, and the group
    // leader (the stub kforge waits on) lives outside, so the group reads as 0 from inside.
    EXPECT_EQ(inside.value("pid", -1), 2);
    EXPECT_EQ(inside.value("pgid", -1), 0);
  } else {
    EXPECT_EQ(inside.value("pgid", -1), inside.value("pid", -2)) << "the worker leads its own process group";
  }
  EXPECT_EQ(inside.at("rlimit_core"), json(0));
  EXPECT_EQ(inside.at("rlimit_fsize"), json(std::uint64_t{64} << 20));
  EXPECT_EQ(inside.at("rlimit_as"), json(std::uint64_t{16} << 30));
  worker.stop();
  EXPECT_FALSE(std::filesystem::exists(folder)) << "the temp folder outlived the worker";
}

TEST(Sandbox, WorkerHasNoNetworkWhereTheSystemAllowsIt) {
  std::string why;
  if (!opencl_usable(why)) GTEST_SKIP() << "no OpenCL device: " << why;
  Listener listener;
  ASSERT_GT(listener.port, 0);
  WorkerLimits limits;
  {  // control: without isolation the worker reaches our socket, so the probe is meaningful
    limits.isolate_network = false;
    WorkerProcess open_worker(worker_path(), Language::OpenCL, 0, limits);
    EXPECT_EQ(sandbox_from_inside(open_worker, listener.port).value("connect", ""), "connected");
  }
  limits.isolate_network = true;
  WorkerProcess worker(worker_path(), Language::OpenCL, 0, limits);
  const json inside = sandbox_from_inside(worker, listener.port);
  if (inside.value("net_namespace", "") == own_net_namespace())
    GTEST_SKIP() << "unshare(CLONE_NEWNET) is not permitted here (no CAP_SYS_ADMIN / user namespaces): "
                    "the worker shares the network; connect gave: " << inside.value("connect", "");
  EXPECT_NE(inside.value("connect", ""), "connected");
  EXPECT_NE(inside.value("connect", "").find("connect:"), std::string::npos) << inside.dump();
}

// Executable file mappings and anonymous executable regions of this process.
std::set<std::string> executable_mappings() {
  std::ifstream maps("/proc/self/maps");
  std::set<std::string> result;
  std::string line;
  while (std::getline(maps, line)) {
    // address perms offset dev inode path
    std::istringstream fields(line);
    std::string range, perms, offset, dev, inode, path;
    fields >> range >> perms >> offset >> dev >> inode;
    std::getline(fields, path);
    if (perms.size() < 3 || perms[2] != 'x') continue;
    const auto start = path.find_first_not_of(' ');
    path = start == std::string::npos ? "" : path.substr(start);
    result.insert(path.empty() ? "[anon " + range + "]" : path);
  }
  return result;
}

std::string unique_kernel(const std::string& name) {
  const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
  return "// " + std::to_string(stamp) + "\n__kernel void " + name +
         "(__global const float* a, __global const float* b, __global float* c, const int n) {\n"
         "  const int i = get_global_id(0);\n  if (i < n) c[i] = a[i] * b[i] + (float)" +
         std::to_string(stamp % 1000) + ";\n}\n";
}

// OpenCL compiles (clBuildProgram, clCreateKernel, clGetKernelWorkGroupInfo for stats) now run
// in the compile worker; the orchestrator only queries the platform. None of that may map the
// kernel's machine code here.
TEST(Sandbox, OpenClCompileMapsNoGeneratedCodeIntoTheOrchestrator) {
  std::string why;
  if (!opencl_usable(why)) GTEST_SKIP() << "no OpenCL device: " << why;
  EvalOptions options;  // compiles happen in kforge-worker --compile-only since the compiler sandbox
  options.worker_executable = std::filesystem::path(KFORGE_BINARY_DIR) / "bin/kforge-worker";
  Evaluator evaluator(load_task(std::filesystem::path(KFORGE_SOURCE_DIR) / "tests/kernels/faulty/correct.kforge.toml"),
                      options);
  // The first compile loads the OpenCL runtime and its compiler: libraries, not kernels.
  KernelVariant warm = evaluator.baseline_variant();
  warm.source = unique_kernel("vector_add");
  ASSERT_TRUE(evaluator.compile(warm).ok);
  const auto before = executable_mappings();
  KernelVariant fresh = evaluator.baseline_variant();
  fresh.source = unique_kernel("vector_add") + "// another\n";
  const CompileResult compiled = evaluator.compile(fresh);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  EXPECT_FALSE(compiled.cache_hit);
  const auto after = executable_mappings();
  std::string added;
  for (const auto& mapping : after)
    if (!before.count(mapping)) added += mapping + "\n";
  EXPECT_TRUE(added.empty()) << "compiling mapped new executable code into the orchestrator:\n" << added;
  // Executable files mapped here are system libraries and our own binary, nothing from a
  // kernel cache (PoCL keeps compiled kernels as .so files under ~/.cache/pocl/kcache).
  for (const auto& mapping : after) {
    if (mapping.empty() || mapping.front() != '/') continue;  // [vdso], [anon ...]
    const bool system = mapping.rfind("/usr/", 0) == 0 || mapping.rfind("/lib", 0) == 0 || mapping.rfind("/opt/", 0) == 0;
    const bool ours = mapping.rfind(KFORGE_BINARY_DIR, 0) == 0;
    EXPECT_TRUE(system || ours) << "unexpected executable mapping: " << mapping;
    EXPECT_EQ(mapping.find("kcache"), std::string::npos) << mapping;
  }
}

// A kernel whose machine code cannot be loaded (PoCL: the .so has an undefined symbol, and
// PoCL aborts the process that dlopen()s it) costs a worker, never the orchestrator.
TEST(Sandbox, UnloadableKernelAbortsOnlyTheWorker) {
  std::string why;
  if (!opencl_usable(why)) GTEST_SKIP() << "no OpenCL device: " << why;
  EvalOptions options;
  options.worker_executable = worker_path();
  options.limits.memory_bytes = std::int64_t{16} << 30;
  options.timing.max_seconds = 0.3;
  Evaluator evaluator(load_task(std::filesystem::path(KFORGE_SOURCE_DIR) / "tests/kernels/faulty/correct.kforge.toml"),
                      options);
  KernelVariant hostile = evaluator.baseline_variant();
  hostile.source = "__attribute__((constructor)) void at_load(void) { printf(\"constructor ran\\n\"); }\n" +
                   unique_kernel("vector_add");
  const EvalResult result = evaluator.evaluate(hostile);  // we are still here: the point of the test
  std::cout << "[ verdict ] " << to_string(result.status) << ": " << result.message << "\n";
  EXPECT_NE(to_string(result.status), "correct") << result.message;
  const EvalResult after = evaluator.evaluate(evaluator.baseline_variant());
  EXPECT_EQ(to_string(after.status), "correct") << after.message;
}


// ---- A hostile worker (tests/eval/hostile_worker.py) run through the real WorkerProcess ----
namespace hostile {

std::filesystem::path script() { return std::filesystem::path(KFORGE_SOURCE_DIR) / "tests/eval/hostile_worker.py"; }

// Host PIDs whose command line contains `marker`.
std::vector<pid_t> processes_with(const std::string& marker) {
  std::vector<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    const std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmdline.find(marker) != std::string::npos) found.push_back(std::stoi(name));
  }
  return found;
}

// A process whose environment (as /proc/<pid>/environ shows it) holds the key: kforge's stand-in.
pid_t start_key_holder(const std::string& secret) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::string variable = "OPENAI_API_KEY=" + secret;
    char* envp[] = {variable.data(), nullptr};
    ::execle("/bin/sleep", "sleep", "120", static_cast<char*>(nullptr), envp);
    ::_exit(127);
  }
  return pid;
}

std::string unique(const std::string& stem) {
  return stem + "-" + std::to_string(::getpid()) + "-" +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000007);
}

constexpr const char* kSecret = "sk-hostile-test-0123456789abcdef";

}  // namespace hostile

TEST(Sandbox, HostileWorkerIsContained) {
  const SandboxSupport& support = sandbox_support();
  for (const auto& mechanism : support.mechanisms)
    if (!mechanism.active) GTEST_SKIP() << mechanism.name << " isolation unavailable here: " << mechanism.detail;
  ::setenv("OPENAI_API_KEY", hostile::kSecret, 1);
  register_secret(hostile::kSecret);
  const pid_t key_holder = hostile::start_key_holder(hostile::kSecret);
  const std::string marker = hostile::unique("kforge-hostile-daemon");
  const std::string file_name = hostile::unique("owned") + ".txt";
  const std::filesystem::path task_folder = std::filesystem::path(KFORGE_SOURCE_DIR) / "tests/kernels/tunable_vadd";
  const std::vector<std::string> folders = {KFORGE_SOURCE_DIR, KFORGE_BINARY_DIR, task_folder.string(), "/tmp"};
  WorkerLimits limits;
  limits.max_processes = 64;
  WorkerProcess worker({hostile::script().string()}, limits);
  const WorkerReply reply = worker.request({{"op", "attack"},
                                            {"file_name", file_name},
                                            {"folders", folders},
                                            {"secret", hostile::kSecret},
                                            {"parent_pid", key_holder},
                                            {"marker", marker},
                                            {"bomb", 2000}},
                                           120);
  ASSERT_EQ(reply.kind, WorkerReply::Kind::Ok) << reply.message;
  const json& report = reply.body;
  std::cout << "[ hostile ] " << report.dump() << "\n";
  for (const auto& folder : folders) {
    EXPECT_EQ(report["writes"][folder].get<std::string>().rfind("failed:", 0), 0u) << folder << ": " << report.dump();
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(folder) / file_name)) << folder;
  }
  EXPECT_EQ(report["own_folder"].get<std::string>().rfind("ok:", 0), 0u) << "its own folder stays writable";
  EXPECT_TRUE(report["env_keys"].empty()) << report["env_keys"].dump();
  EXPECT_FALSE(report["env_has_secret"].get<bool>());
  EXPECT_EQ(report["parent_environ"].get<std::string>().rfind("failed:", 0), 0u) << report["parent_environ"];
  EXPECT_LE(report["visible_pids"].get<int>(), 4) << "its /proc shows only its own namespace";
  EXPECT_EQ(report["leave_cgroup"].get<std::string>().rfind("failed:", 0), 0u) << report["leave_cgroup"];
  EXPECT_NE(report["remount"].get<int>(), 0) << "root without capabilities cannot remount";
  EXPECT_EQ(report["daemon"], "ok: started");
  const std::string bomb = report["fork_bomb"].get<std::string>();
  EXPECT_NE(bomb.find("then"), std::string::npos) << "the process limit stopped the bomb: " << bomb;
  EXPECT_FALSE(hostile::processes_with(marker).empty()) << "the daemon runs while its worker lives";
  const auto folder = worker.sandbox_dir();
  worker.stop();
  EXPECT_TRUE(hostile::processes_with(marker).empty()) << "a setsid daemon outlived its worker";
  EXPECT_GE(worker.last_cleanup().leftover_processes, 2) << "daemon and bomb children are counted";
  EXPECT_GE(worker.last_cleanup().fork_refusals, 1);
  std::cout << "[ cleanup ] " << worker.last_cleanup().describe() << "\n";
  EXPECT_FALSE(std::filesystem::exists(folder));
  ::kill(key_holder, SIGKILL);
  ::waitpid(key_holder, nullptr, 0);
  for (const auto& f : folders) std::filesystem::remove(std::filesystem::path(f) / file_name);
}

// The same attacks without the sandbox succeed: the assertions above test something real.
TEST(Sandbox, HostileWorkerWithoutTheSandboxGetsThrough) {
  const pid_t key_holder = hostile::start_key_holder(hostile::kSecret);
  const std::string marker = hostile::unique("kforge-hostile-daemon");
  const std::string file_name = hostile::unique("owned") + ".txt";
  char pattern[] = "/tmp/kforge-hostile-target-XXXXXX";
  const std::filesystem::path target = ::mkdtemp(pattern);
  WorkerLimits limits;
  limits.sandbox = false;
  WorkerProcess worker({hostile::script().string()}, limits);
  const WorkerReply reply = worker.request({{"op", "attack"},
                                            {"file_name", file_name},
                                            {"folders", {target.string()}},
                                            {"secret", hostile::kSecret},
                                            {"parent_pid", key_holder},
                                            {"marker", marker},
                                            {"bomb", 20}},
                                           120);
  ASSERT_EQ(reply.kind, WorkerReply::Kind::Ok) << reply.message;
  EXPECT_EQ(reply.body["writes"][target.string()].get<std::string>().rfind("ok:", 0), 0u) << reply.body.dump();
  EXPECT_EQ(reply.body["parent_environ"], "ok: True") << reply.body.dump();
  EXPECT_GT(reply.body["visible_pids"].get<int>(), 4);
  worker.stop();
  const auto survivors = hostile::processes_with(marker);
  EXPECT_FALSE(survivors.empty()) << "without the sandbox a setsid daemon escapes the process group";
  for (const pid_t pid : survivors) ::kill(pid, SIGKILL);
  ::kill(key_holder, SIGKILL);
  ::waitpid(key_holder, nullptr, 0);
  std::filesystem::remove_all(target);
}

TEST(Sandbox, EnvironmentIsAnAllowlistWithoutCredentials) {
  ::setenv("HF_TOKEN", "hf_abcdefghijklmnop", 1);
  ::setenv("KFORGE_ANTHROPIC_API_KEY", "sk-ant-0123456789", 1);
  ::setenv("SOME_RANDOM_VARIABLE", "value", 1);
  ::setenv("POCL_DEVICES", "cpu", 1);
  const auto env = sandbox_environment("/tmp/kforge-worker-test");
  auto has = [&](const std::string& prefix) {
    return std::any_of(env.begin(), env.end(), [&](const std::string& v) { return v.rfind(prefix, 0) == 0; });
  };
  EXPECT_TRUE(has("PATH="));
  EXPECT_TRUE(has("POCL_DEVICES=cpu"));
  EXPECT_TRUE(has("HOME=/tmp/kforge-worker-test"));
  EXPECT_TRUE(has("TMPDIR=/tmp/kforge-worker-test"));
  EXPECT_FALSE(has("HF_TOKEN="));
  EXPECT_FALSE(has("KFORGE_ANTHROPIC_API_KEY="));
  EXPECT_FALSE(has("SOME_RANDOM_VARIABLE="));
  ::unsetenv("HF_TOKEN");
  ::unsetenv("KFORGE_ANTHROPIC_API_KEY");
  ::unsetenv("SOME_RANDOM_VARIABLE");
}

}  // namespace
}  // namespace kforge
