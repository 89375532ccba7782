// `--resume` runs the configuration stored in run.db: flags given again replace their stored
// values, every other flag keeps the stored one (the rule in src/cli/optimize_flags.h).
#include <gtest/gtest.h>

#include "backend/backend.h"
#include "cli/optimize_flags.h"
#include "cli_runner.h"
#include "optimize/run_config.h"
#include "store/run_store.h"

namespace kforge {
namespace {
using testing::make_temp_dir;
using testing::run_kforge;

optimize::RunConfig parse_resume(const optimize::RunConfig& stored, std::vector<std::string> arguments) {
  CLI::App app;
  cli::OptimizeFlags flags;
  cli::add_optimize_flags(app, flags);
  std::reverse(arguments.begin(), arguments.end());  // CLI11 takes them last first
  app.parse(arguments);
  return cli::resumed_config(stored, flags, app);
}

TEST(ResumeConfig, FlagsGivenAgainReplaceStoredValuesAndOnlyThose) {
  optimize::RunConfig stored;
  stored.task_name = "vadd";
  stored.evolution.generations = 3;
  stored.evolution.population = 5;
  stored.evolution.target_speedup = 1.5;
  stored.evolution.seed = 42;
  stored.eval.seeds = 4;
  stored.eval.max_seconds = 0.5;
  stored.llm_spec = "none";
  stored.llm_budget_usd = 2;
  stored.profile_counters = false;

  const optimize::RunConfig untouched = parse_resume(stored, {"--resume", "runs/x"});
  EXPECT_EQ(to_json(untouched), to_json(stored)) << "no flag given: the stored configuration as it is";

  const optimize::RunConfig resumed =
      parse_resume(stored, {"--resume", "runs/x", "-g", "6", "--seeds", "1", "--llm-budget-usd", "0"});
  EXPECT_EQ(resumed.evolution.generations, 6);
  EXPECT_EQ(resumed.eval.seeds, 1);
  EXPECT_EQ(resumed.llm_budget_usd, 0);
  EXPECT_EQ(resumed.evolution.population, 5);
  EXPECT_EQ(resumed.evolution.target_speedup, 1.5);
  EXPECT_EQ(resumed.evolution.seed, 42u);
  EXPECT_EQ(resumed.eval.max_seconds, 0.5);
  EXPECT_EQ(resumed.llm_spec, "none");
  EXPECT_FALSE(resumed.profile_counters);
}

TEST(ResumeConfig, AResumedRunUsesTheStoredConfiguration) {
  if (!make_backend(Language::OpenCL)->probe().usable) GTEST_SKIP() << "no OpenCL device";
  const auto runs = make_temp_dir("kforge-resume-config");
  const std::string task = (testing::source_dir() / "tests/kernels/tunable_vadd").string();
  const auto first = run_kforge("optimize " + task + " -g 1 -p 2 --seed 7 --llm none --max-seconds 0.05 --seeds 1 " +
                                "--runs-dir " + runs.string());
  ASSERT_EQ(first.exit_code, 0) << first.output;
  std::filesystem::path run_dir;
  for (const auto& entry : std::filesystem::directory_iterator(runs)) run_dir = entry.path();

  // Only -g is given again: population, seed, LLM and the evaluation flags are the stored ones.
  const auto resumed = run_kforge("optimize --resume " + run_dir.string() + " -g 2");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("evolve: 2 generations x 2 candidates"), std::string::npos) << resumed.output;
  const RunStore store = RunStore::open_read_only(run_dir);
  EXPECT_EQ(store.last_completed_generation().value_or(-1), 2);
  const optimize::RunConfig config = optimize::load_run_config(store);
  EXPECT_EQ(config.evolution.generations, 2);
  EXPECT_EQ(config.evolution.population, 2);
  EXPECT_EQ(config.evolution.seed, 7u);
  EXPECT_EQ(config.eval.seeds, 1);
  EXPECT_EQ(config.eval.max_seconds, 0.05);
  EXPECT_EQ(config.llm_spec, "none");
  EXPECT_EQ(store.read_settings().generations, 2);
}

}  // namespace
}  // namespace kforge
