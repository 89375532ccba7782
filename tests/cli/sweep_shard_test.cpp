// `kforge sweep --shard K/N`: N calls (or machines) share one sweep; their configurations are
// disjoint and together the whole space, and a malformed shard is one line and a failed exit.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "backend/backend.h"
#include "cli_runner.h"

namespace kforge {
namespace {
using testing::run_kforge;
using testing::source_dir;

std::set<std::string> configs_of(const std::string& extra) {
  const auto result = run_kforge("sweep " + (source_dir() / "tests/kernels/tunable_vadd").string() +
                                 " --limit 9 --max-seconds 0.02 --seeds 1 --json " + extra);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  // The JSON is the last thing printed; progress lines (stderr) come before it.
  const auto line = result.output.find("\n[");
  const auto json = nlohmann::json::parse(result.output.substr(line == std::string::npos ? result.output.find('[') : line + 1));
  std::set<std::string> configs;
  for (const auto& entry : json.at(0).at("configurations")) configs.insert(entry.at("config").get<std::string>());
  return configs;
}

TEST(SweepShard, ShardsAreDisjointAndTogetherTheWholeSpace) {
  const Availability availability = make_backend(Language::OpenCL)->probe();
  if (!availability.usable) GTEST_SKIP() << "no OpenCL device: " << availability.reason;
  const auto first = configs_of("--shard 0/2"), second = configs_of("--shard 1/2");
  EXPECT_EQ(first.size(), 5u);
  EXPECT_EQ(second.size(), 4u);
  std::set<std::string> both = first;
  both.insert(second.begin(), second.end());
  EXPECT_EQ(both.size(), 9u) << "no configuration in two shards";
}

TEST(SweepShard, AMalformedShardIsOneLineAndAFailedExit) {
  const auto result = run_kforge("sweep " + (source_dir() / "tests/kernels/tunable_vadd").string() + " --shard 2/2");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.output.find("--shard"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("0/3"), std::string::npos) << "says what a shard looks like: " << result.output;
}

}  // namespace
}  // namespace kforge
