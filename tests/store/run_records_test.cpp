// Settings, evaluations, LLM exchanges, generations and events.
#include "store/run_store.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>

namespace kforge {
namespace {

using testing::TempDir;

TEST(RunStoreSettings, TypedSettingsRoundTripAndSurviveReopen) {
  TempDir tmp;
  RunSettings settings;
  settings.task_manifest = "/tasks/saxpy/kforge.toml";
  settings.task_name = "saxpy";
  settings.generations = 12;
  settings.population = 8;
  settings.target = "cuda:0";
  settings.time_budget_s = 900.5;
  settings.seed = 18446744073709551615ull;  // full 64-bit range survives JSON
  settings.llm = "anthropic:claude";
  settings.kforge_version = "0.1.0";
  {
    auto store = RunStore::create(tmp.path() / "run");
    store.write_settings(settings);
    store.set_setting("extra", {{"nested", {1, 2, 3}}});
    store.set_baseline(metrics_from_json({{"median_ms", 3.5}, {"profile", {{"bound", "memory"}}}}));
  }
  auto store = RunStore::open(tmp.path() / "run");
  auto got = store.read_settings();
  EXPECT_EQ(got.task_manifest, settings.task_manifest);
  EXPECT_EQ(got.task_name, "saxpy");
  EXPECT_EQ(got.generations, 12);
  EXPECT_EQ(got.population, 8);
  EXPECT_EQ(got.target, "cuda:0");
  EXPECT_DOUBLE_EQ(got.time_budget_s, 900.5);
  EXPECT_EQ(got.seed, settings.seed);
  EXPECT_EQ(got.llm, settings.llm);
  EXPECT_EQ(got.kforge_version, "0.1.0");
  EXPECT_FALSE(got.started_at.empty());
  EXPECT_EQ(got.status, "running");
  EXPECT_EQ((*store.get_setting("extra"))["nested"][2], 3);
  EXPECT_FALSE(store.get_setting("missing"));
  EXPECT_EQ(store.baseline()->median_ms, 3.5);
  EXPECT_EQ(store.baseline()->profile["bound"], "memory");
  EXPECT_TRUE(store.all_settings().contains("baseline"));

  store.set_status("finished");
  EXPECT_EQ(store.status(), "finished");
  store.set_setting("extra", 5);  // overwrite
  EXPECT_EQ(*store.get_setting("extra"), 5);
}

TEST(RunStoreRecords, EvaluationsAreKeptPerCandidate) {
  TempDir tmp;
  auto store = RunStore::create(tmp.path() / "run");
  CandidateRecord c;
  c.source = "x";
  const auto id = store.insert_candidate(c);
  EvaluationRecord e;
  e.candidate_id = id;
  e.kind = "check";
  e.size_name = "small";
  e.result = {{"max_abs_err", 1e-7}};
  store.add_evaluation(e);
  e.kind = "time";
  e.result = {{"median_ms", 0.5}};
  store.add_evaluation(e);
  auto evaluations = store.list_evaluations(id);
  ASSERT_EQ(evaluations.size(), 2u);
  EXPECT_EQ(evaluations[0].kind, "check");
  EXPECT_EQ(evaluations[0].size_name, "small");
  EXPECT_DOUBLE_EQ(evaluations[0].result["max_abs_err"].get<double>(), 1e-7);
  EXPECT_EQ(evaluations[1].result["median_ms"], 0.5);
  EXPECT_TRUE(store.list_evaluations(id + 1).empty());
}

TEST(RunStoreRecords, EvaluationOfUnknownCandidateIsRejected) {
  TempDir tmp;
  auto store = RunStore::create(tmp.path() / "run");
  EvaluationRecord e;
  e.candidate_id = 77;
  e.kind = "check";
  EXPECT_THROW(store.add_evaluation(e), StoreError);
}

TEST(RunStoreRecords, LlmExchangesAndTotals) {
  TempDir tmp;
  auto store = RunStore::create(tmp.path() / "run");
  CandidateRecord c;
  c.source = "x";
  const auto id = store.insert_candidate(c);
  LlmExchange x;
  x.candidate_id = std::to_string(id);
  x.provider = "openai";
  x.model = "gpt";
  x.purpose = "mutate";
  x.request_json = nlohmann::json{{"messages", {{{"role", "user"}, {"content", "hi"}}}}}.dump();
  x.text = "kernel";
  x.status = "ok";
  x.input_tokens = 100;
  x.output_tokens = 50;
  x.cost_usd = 0.25;
  x.latency_ms = 1500;
  x.attempts = 2;
  store.add_llm_exchange(x);
  LlmExchange failed = x;
  failed.candidate_id = "pending:3";  // never settled: linked to no candidate
  failed.status = "error";
  failed.error = "HTTP 429";
  failed.input_tokens = 10;
  failed.output_tokens = 0;
  failed.cost_usd = 0.5;
  store.add_llm_exchange(failed);

  auto all = store.list_llm_exchanges();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].stored_candidate_id(), id);
  EXPECT_EQ(nlohmann::json::parse(all[0].request_json)["messages"][0]["content"], "hi");
  EXPECT_EQ(all[0].text, "kernel");
  EXPECT_EQ(all[0].outcome(), "ok");
  EXPECT_EQ(all[0].attempts, 2);
  EXPECT_DOUBLE_EQ(all[0].latency_ms, 1500);
  EXPECT_FALSE(all[1].stored_candidate_id());
  EXPECT_EQ(all[1].error, "HTTP 429");
  EXPECT_EQ(all[1].outcome(), "error");
  EXPECT_EQ(all[1].response_body, "");  // a failed call keeps the raw body; this one had none
  EXPECT_EQ(store.list_llm_exchanges(id).size(), 1u);

  auto totals = store.llm_totals();
  EXPECT_EQ(totals.exchanges, 2);
  EXPECT_EQ(totals.input_tokens, 110);
  EXPECT_EQ(totals.output_tokens, 50);
  EXPECT_DOUBLE_EQ(totals.cost_usd, 0.75);
}

TEST(RunStoreRecords, GenerationsTrackCompletion) {
  TempDir tmp;
  auto store = RunStore::create(tmp.path() / "run");
  EXPECT_FALSE(store.last_completed_generation());
  store.begin_generation(0);
  EXPECT_FALSE(store.last_completed_generation());
  GenerationRecord g0;
  g0.generation = 0;
  g0.best_candidate_id = 1;
  g0.best_median_ms = 2.5;
  g0.evaluated = 8;
  g0.correct = 6;
  store.finish_generation(g0);
  store.begin_generation(1);  // interrupted before it finished
  EXPECT_EQ(store.last_completed_generation(), 0);

  auto generations = store.list_generations();
  ASSERT_EQ(generations.size(), 2u);
  EXPECT_EQ(generations[0].best_candidate_id, 1);
  EXPECT_EQ(generations[0].best_median_ms, 2.5);
  EXPECT_EQ(generations[0].evaluated, 8);
  EXPECT_EQ(generations[0].correct, 6);
  EXPECT_FALSE(generations[0].finished_at.empty());
  EXPECT_GE(generations[0].wall_s, 0.0);
  EXPECT_LT(generations[0].wall_s, 60.0);
  EXPECT_TRUE(generations[1].finished_at.empty());
  EXPECT_FALSE(generations[1].best_median_ms);

  // Resume re-runs generation 1 from the start.
  store.begin_generation(1);
  GenerationRecord g1;
  g1.generation = 1;
  store.finish_generation(g1);
  EXPECT_EQ(store.last_completed_generation(), 1);
}

TEST(RunStoreRecords, EventsKeepOrderAndGeneration) {
  TempDir tmp;
  auto store = RunStore::create(tmp.path() / "run");
  store.add_event("started");
  store.add_event("generation done", 4);
  auto events = store.list_events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].message, "started");
  EXPECT_FALSE(events[0].generation);
  EXPECT_EQ(events[1].generation, 4);
  EXPECT_FALSE(events[1].time.empty());
}

}  // namespace
}  // namespace kforge
