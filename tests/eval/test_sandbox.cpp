// The sandbox the real spawn builds, looked at from inside the worker ("sandbox" request),
// and the rule that generated code is never mapped into the orchestrator.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>

#include "backend/backend.h"
#include "eval/evaluator.h"
#include "eval/worker_process.h"

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
  EXPECT_EQ(inside.value("pgid", -1), inside.value("pid", -2)) << "the worker leads its own process group";
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

}  // namespace
}  // namespace kforge
