// Faults from outside the kernel: the worker killed by someone else while it runs a request.
// The evaluation reports it, and the next one gets a fresh worker.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include "backend/backend.h"
#include "eval/evaluator.h"
#include "util/files.h"

namespace kforge {
namespace {

const std::filesystem::path kFaulty = std::filesystem::path(KFORGE_SOURCE_DIR) / "tests/kernels/faulty";

// Pid of a descendant of this process running `name`, or -1. A descendant, not a child: the
// sandbox starts the worker inside a PID namespace, below a stub that stays our child.
pid_t child_named(const std::string& name) {
  std::map<pid_t, std::pair<pid_t, std::string>> processes;  // pid -> (ppid, comm)
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string pid_text = entry.path().filename();
    if (pid_text.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat_file(entry.path() / "stat");
    std::string stat;
    std::getline(stat_file, stat);
    // pid (comm) state ppid ...; comm may hold spaces, so split at the last ')'.
    const auto open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    processes[static_cast<pid_t>(std::stol(pid_text))] = {ppid, stat.substr(open + 1, close - open - 1)};
  }
  for (const auto& [pid, process] : processes) {
    if (process.second != name.substr(0, 15)) continue;
    for (pid_t up = process.first; up > 1; up = processes.count(up) ? processes[up].first : 0)
      if (up == ::getpid()) return pid;
  }
  return -1;
}

TEST(FaultSurvival, WorkerKilledMidRequestIsReportedAndReplaced) {
  const Availability availability = make_backend(Language::OpenCL)->probe();
  if (!availability.usable) GTEST_SKIP() << "no OpenCL device: " << availability.reason;
  EvalOptions options;
  const char* worker = std::getenv("KFORGE_WORKER");
  options.worker_executable = worker ? std::filesystem::path(worker)
                                     : std::filesystem::path(KFORGE_BINARY_DIR) / "bin/kforge-worker";
  options.check_timeout_s = 60;  // far beyond the kill: the verdict must come from the kill
  options.timing.max_seconds = 0.3;
  options.limits.memory_bytes = std::int64_t{16} << 30;
  // The baseline is correct (it is timed against the next candidate); the candidate hangs.
  Evaluator evaluator(load_task(kFaulty / "correct.kforge.toml"), options);
  KernelVariant hanging = evaluator.baseline_variant();
  hanging.source = read_file(kFaulty / "infinite_loop.cl");
  const CompileResult compiled = evaluator.compile(hanging);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  // The first check of a task also calibrates its tolerances: get that out of the way, so the
  // kill below lands in the hanging kernel.
  const KernelVariant baseline = evaluator.baseline_variant();
  ASSERT_EQ(to_string(evaluator.check(baseline, evaluator.compile(baseline)).status), "correct");

  std::atomic<pid_t> killed{-1};
  std::thread killer([&] {
    // Wait for the worker, let it get into the hanging kernel, then kill it from outside.
    for (int i = 0; i < 600 && killed < 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const pid_t pid = child_named("kforge-worker");
      if (pid > 0 && i >= 15) {
        ::kill(pid, SIGKILL);
        killed = pid;
      }
    }
  });
  const auto start = std::chrono::steady_clock::now();
  const EvalResult result = evaluator.evaluate_compiled(hanging, compiled);
  killer.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_GT(killed.load(), 0) << "no kforge-worker child appeared";
  EXPECT_EQ(to_string(result.status), "runtime_error") << result.message;
  EXPECT_NE(result.message.find("killed by signal 9"), std::string::npos) << result.message;
  EXPECT_LT(seconds, 30) << "the kill was noticed only at the timeout";

  // The same evaluator starts a fresh worker and measures a good kernel.
  const EvalResult after = evaluator.evaluate(evaluator.baseline_variant());
  EXPECT_EQ(to_string(after.status), "correct") << after.message;
  EXPECT_NE(child_named("kforge-worker"), killed.load());
}

}  // namespace
}  // namespace kforge
