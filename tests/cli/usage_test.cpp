// The CLI's conventions: a usage error exits 2 (never CLI11's 105/106/109) with a "did you mean"
// for a mistyped command or option, and global flags are accepted after the subcommand.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/suggest.h"
#include "cli_runner.h"
#include "support/temp_dir.h"

namespace kforge {
namespace {
using testing::run_kforge;

TEST(Usage, AMistypedCommandExitsTwoWithASuggestion) {
  const auto result = run_kforge("optimise examples/vector_add");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("did you mean 'optimize'?"), std::string::npos) << result.output;
}

TEST(Usage, AMistypedOptionExitsTwoWithASuggestion) {
  const auto result = run_kforge("bench examples/vector_add/opencl --max-secondz 0.1");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("did you mean '--max-seconds'?"), std::string::npos) << result.output;
}

TEST(Usage, AValueTheCommandRefusesIsAUsageErrorToo) {
  const auto result = run_kforge("sweep tests/kernels/tunable_vadd --shard 3/2");
  EXPECT_EQ(result.exit_code, 2) << result.output;
}

TEST(Usage, RangesAreCheckedWithAReadableMessage) {
  const auto result = run_kforge("optimize examples/vector_add -g -1");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--generations: must be 1 or more, not -1"), std::string::npos) << result.output;
  EXPECT_EQ(run_kforge("optimize examples/vector_add --time-budget -5").exit_code, 2);
}

TEST(Usage, RunsPrintsJsonOnRequest) {
  const testing::TempDir empty("kforge-runs-json");
  const auto result = run_kforge("runs --json --runs-dir " + empty.path().string());
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(nlohmann::json::parse(result.output), nlohmann::json::array());
}

TEST(Usage, GlobalFlagsWorkAfterTheSubcommand) {
  const auto result = run_kforge("detect " + (testing::source_dir() / "examples/vector_add").string() + " -q");
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

TEST(Usage, SuggestionsAreTheClosestKnownNameOrNothing) {
  EXPECT_EQ(cli::closest_name("optimise", {"bench", "optimize", "profile"}), "optimize");
  EXPECT_EQ(cli::closest_name("--generatons", {"--generations", "--population"}), "--generations");
  EXPECT_EQ(cli::closest_name("frobnicate", {"bench", "optimize"}), std::nullopt);
}

}  // namespace
}  // namespace kforge
