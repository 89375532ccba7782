// `kforge profile` end to end on the OpenCL vector_add example (PoCL or any OpenCL device):
// the built binary is run as a subprocess, as a user would run it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "profile/subprocess.h"
#include "test_support.h"

namespace kforge {
namespace {

std::filesystem::path kforge_binary() { return std::filesystem::path(KFORGE_BINARY_DIR) / "bin" / "kforge"; }

CommandResult run_kforge(const std::vector<std::string>& args, const std::filesystem::path& cache) {
  std::vector<std::string> command = {"env", "KFORGE_CACHE_DIR=" + cache.string(), kforge_binary().string()};
  command.insert(command.end(), args.begin(), args.end());
  return run_command(command, 300);
}

class KforgeProfile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kforge_binary()))
      GTEST_SKIP() << kforge_binary() << " is not built (build the kforge and kforge-worker targets)";
  }
  const std::string task = std::string(KFORGE_SOURCE_DIR) + "/examples/vector_add/opencl";
  test::TempDir cache;
};

TEST_F(KforgeProfile, PrintsTheAnalyticRooflineForOpenCl) {
  const CommandResult human = run_kforge({"profile", task, "--seeds", "1", "--max-seconds", "0.3"}, cache.path());
  ASSERT_EQ(human.exit_code, 0) << human.output;
  for (const char* expected : {"task: vector_add (opencl), baseline", "peaks: ", "bound: ",
                               "source: analytic (no hardware counters for OpenCL on this device)", "roofline: ",
                               "limiters:", "try: "})
    EXPECT_NE(human.output.find(expected), std::string::npos) << expected << "\n" << human.output;

  const CommandResult machine =
      run_kforge({"-q", "profile", task, "--seeds", "1", "--max-seconds", "0.3", "--json", "-p", "BLOCK=128"},
                 cache.path());
  ASSERT_EQ(machine.exit_code, 0) << machine.output;
  const auto json = nlohmann::json::parse(machine.output.substr(machine.output.find("[\n")));
  ASSERT_EQ(json.size(), 1u);
  const auto& profile = json[0]["profile"];
  EXPECT_EQ(profile["source"], "analytic");
  EXPECT_TRUE(profile["bound"] == "memory" || profile["bound"] == "latency" || profile["bound"] == "compute");
  EXPECT_GT(profile["achieved_gbps"].get<double>(), 0);
  EXPECT_GT(profile["peak_gbps"].get<double>(), 0);
  EXPECT_GT(profile["peak_gflops"].get<double>(), 0);
  EXPECT_EQ(json[0]["device"]["fp32_source"], "measured FMA chain");  // the probe ran through the worker
}

TEST_F(KforgeProfile, CandidateNeedsARun) {
  const CommandResult result = run_kforge({"profile", task, "--candidate", "3"}, cache.path());
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.output.find("--candidate needs --run"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace kforge
