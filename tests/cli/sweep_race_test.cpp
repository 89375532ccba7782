// `kforge sweep` on PoCL, several at once on a loaded machine: the OpenCL platform used to be
// first queried from two compile threads at once, which crashed kforge about 2 runs in 3 or
// reported every configuration after the first as "compile_error no OpenCL device". And an
// environment without OpenCL is one line and a non-zero exit, never a candidate's compile error.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/backend.h"
#include "cli_runner.h"

namespace kforge {
namespace {
using testing::run_kforge;
using testing::source_dir;

const std::string kSweep = "sweep " + (source_dir() / "tests/kernels/tunable_vadd").string() +
                           " --limit 12 --max-seconds 0.02 --seeds 1 --json";

TEST(SweepRace, ParallelSweepsUnderLoadCompileEveryConfiguration) {
  const Availability availability = make_backend(Language::OpenCL)->probe();
  if (!availability.usable) GTEST_SKIP() << "no OpenCL device: " << availability.reason;
  // Load: busy threads beside the sweeps, which themselves compete for the 2 cores.
  std::atomic<bool> stop{false};
  std::vector<std::thread> burners;
  for (int i = 0; i < 2; ++i)
    burners.emplace_back([&] {
      volatile unsigned long spin = 0;
      while (!stop) spin = spin + 1;
    });
  constexpr int kSweeps = 4;
  // Without the cache every configuration is really compiled, from several threads.
  ::setenv("KFORGE_NO_COMPILE_CACHE", "1", 1);
  std::vector<std::future<testing::CommandResult>> sweeps;
  for (int i = 0; i < kSweeps; ++i)
    sweeps.push_back(std::async(std::launch::async, [] { return run_kforge(kSweep); }));
  std::vector<testing::CommandResult> results;
  for (auto& sweep : sweeps) results.push_back(sweep.get());
  stop = true;
  for (auto& burner : burners) burner.join();
  ::unsetenv("KFORGE_NO_COMPILE_CACHE");
  for (const auto& result : results) {
    ASSERT_EQ(result.exit_code, 0) << result.output;
    const auto start = result.output.find("\n[") == std::string::npos ? result.output.find('[')
                                                                       : result.output.find("\n[") + 1;
    ASSERT_NE(start, std::string::npos) << result.output;
    const auto all = nlohmann::json::parse(result.output.substr(start));
    const auto& configurations = all.at(0).at("configurations");
    EXPECT_EQ(configurations.size(), 12u);
    // Every configuration compiled and passed its checks. (Its timing verdict is not this
    // test's business: under this load the timing-mismatch rule may still reject one.)
    for (const auto& entry : configurations) {
      EXPECT_NE(entry.value("status", ""), "compile_error") << entry.dump();
      EXPECT_NE(entry.value("status", ""), "runtime_error") << entry.dump();
      ASSERT_TRUE(entry.contains("checks")) << entry.dump();
      // Every size before timing (more seeds and adversarial draws), and again after timing.
      EXPECT_GE(entry.at("checks").size(), 3u) << entry.dump();
      for (const auto& check : entry.at("checks")) EXPECT_TRUE(check.value("passed", false)) << entry.dump();
    }
  }
}

TEST(SweepRace, NoOpenClPlatformIsOneLineAndAFailureNotACompileError) {
  // The ICD loader then finds no platform at all.
  ::setenv("OCL_ICD_VENDORS", "/nonexistent-kforge-test", 1);
  ::setenv("OCL_ICD_FILENAMES", "", 1);
  const auto broken = run_kforge(kSweep);
  ::unsetenv("OCL_ICD_VENDORS");
  ::unsetenv("OCL_ICD_FILENAMES");
  EXPECT_NE(broken.exit_code, 0) << broken.output;
  EXPECT_NE(broken.output.find("no OpenCL device"), std::string::npos) << broken.output;
  EXPECT_EQ(broken.output.find("compile_error"), std::string::npos) << broken.output;
  EXPECT_LE(std::count(broken.output.begin(), broken.output.end(), '\n'), 2) << broken.output;
}

}  // namespace
}  // namespace kforge
