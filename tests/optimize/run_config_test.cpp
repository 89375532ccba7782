// The run configuration: every field survives a real run.db, and a run from before the stored
// configuration still resumes with what its summary keys recorded.
#include <gtest/gtest.h>

#include "optimize/run_config.h"
#include "support/temp_dir.h"

namespace kforge::optimize {
namespace {

RunConfig unusual_config() {
  RunConfig c;
  c.task_manifest = "/tasks/vadd/kforge.toml";
  c.task_name = "vadd";
  c.evolution.generations = 13;
  c.evolution.population = 5;
  c.evolution.elite = 3;
  c.evolution.tournament = 4;
  c.evolution.target_speedup = 1.75;
  c.evolution.time_budget_s = 90;
  c.evolution.seed = 123456789012345ULL;
  c.eval.timeout_s = 7;
  c.eval.max_seconds = 0.25;
  c.eval.seeds = 3;
  c.eval.no_flush = true;
  c.eval.device = 1;
  c.final_seeds = 9;
  c.llm_spec = "openai:gpt-4o";
  c.llm_budget_usd = 2.5;
  c.llm_budget_tokens = 40000;
  c.llm_only = true;
  c.profile_counters = false;
  c.kforge_version = "9.8.7";
  return c;
}

TEST(RunConfig, RoundTripsThroughARealRunDb) {
  testing::TempDir dir;
  const RunConfig written = unusual_config();
  {
    RunStore store = RunStore::create(dir.path() / "run");
    store_run_config(store, written, "cuda:1");
  }
  const RunStore store = RunStore::open_read_only(dir.path() / "run");
  const RunConfig read = load_run_config(store);
  EXPECT_EQ(to_json(read), to_json(written));
  // The summary keys that `kforge runs` and the report read agree with it.
  const RunSettings settings = store.read_settings();
  EXPECT_EQ(settings.task_name, "vadd");
  EXPECT_EQ(settings.generations, 13);
  EXPECT_EQ(settings.seed, written.evolution.seed);
  EXPECT_EQ(settings.target, "cuda:1");
  EXPECT_EQ(settings.llm, "openai:gpt-4o");
  EXPECT_EQ(settings.kforge_version, "9.8.7");
}

TEST(RunConfig, MissingKeysKeepTheirDefaults) {
  const RunConfig read = run_config_from_json({{"task_name", "t"}, {"evolution", {{"generations", 2}}}});
  const RunConfig defaults;
  EXPECT_EQ(read.task_name, "t");
  EXPECT_EQ(read.evolution.generations, 2);
  EXPECT_EQ(read.evolution.population, defaults.evolution.population);
  EXPECT_EQ(read.eval.seeds, defaults.eval.seeds);
  EXPECT_EQ(read.final_seeds, defaults.final_seeds);
  EXPECT_TRUE(read.profile_counters);
}

TEST(RunConfig, ARunFromBeforeTheStoredConfigResumesFromItsSummaryKeys) {
  testing::TempDir dir;
  {
    RunStore store = RunStore::create(dir.path() / "run");
    RunSettings settings;
    settings.task_manifest = "/tasks/vadd/kforge.toml";
    settings.task_name = "vadd";
    settings.generations = 6;
    settings.population = 4;
    settings.time_budget_s = 30;
    settings.seed = 77;
    settings.llm = "none";
    store.write_settings(settings);
    store.set_setting("llm_options", {{"usd", 1.5}, {"tokens", 900}, {"llm_only", true}});
  }
  const RunConfig config = load_run_config(RunStore::open_read_only(dir.path() / "run"));
  EXPECT_EQ(config.task_manifest, "/tasks/vadd/kforge.toml");
  EXPECT_EQ(config.evolution.generations, 6);
  EXPECT_EQ(config.evolution.population, 4);
  EXPECT_EQ(config.evolution.time_budget_s, 30);
  EXPECT_EQ(config.evolution.seed, 77u);
  EXPECT_EQ(config.llm_spec, "none");
  EXPECT_EQ(config.llm_budget_usd, 1.5);
  EXPECT_EQ(config.llm_budget_tokens, 900);
  EXPECT_TRUE(config.llm_only);
}

}  // namespace
}  // namespace kforge::optimize
