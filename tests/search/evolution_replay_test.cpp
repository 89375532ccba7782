// The evolution loop without a device: a ReplayEvaluator answers from a real exhaustive sweep of
// tests/kernels/tunable_vadd recorded on PoCL (tests/search/data/tunable_vadd_sweep.json, made
// with `kforge sweep tests/kernels/tunable_vadd --json`). Resume, in-flight discard, stop
// reasons, dedup and the space-filling start are checked here. (This PoCL recording is too flat
// to rank strategies: nearly every configuration times the same.)
#include <gtest/gtest.h>

#include <set>

#include "search/evolution.h"
#include "search/operators/crossover.h"
#include "search/operators/sample.h"
#include "search/operators/tune.h"
#include "search/param_space.h"
#include "search/replay_evaluator.h"
#include "support/temp_dir.h"
#include "util/files.h"

namespace kforge {
namespace {

const std::filesystem::path kSource = KFORGE_SOURCE_DIR;

Task vadd_task() { return load_task(kSource / "tests/kernels/tunable_vadd/kforge.toml"); }

ReplayEvaluator recorded_sweep() {
  return ReplayEvaluator::from_sweep(
      vadd_task(), nlohmann::json::parse(read_file(kSource / "tests/search/data/tunable_vadd_sweep.json")));
}

std::vector<std::unique_ptr<Operator>> param_operators(bool with_local_search = true) {
  std::vector<std::unique_ptr<Operator>> operators;
  operators.push_back(std::make_unique<SampleOperator>());
  if (with_local_search) {
    operators.push_back(std::make_unique<TuneOperator>());
    operators.push_back(std::make_unique<CrossoverOperator>());
  }
  return operators;
}

EvolutionSettings settings(int generations, int population, std::uint64_t seed) {
  EvolutionSettings s;
  s.generations = generations;
  s.population = population;
  s.seed = seed;
  return s;
}

TEST(ReplayEvaluator, AnswersFromTheRecordingAndNamesWhatIsMissing) {
  ReplayEvaluator replay = recorded_sweep();
  EXPECT_EQ(replay.recorded(), ParamSpace(replay.task()).size());
  const KernelVariant original = replay.baseline_variant();
  const EvalResult result = replay.evaluate_compiled(original, replay.compile_all({original})[0]);
  EXPECT_EQ(result.status, CandidateStatus::Correct);
  ASSERT_TRUE(result.timing.has_value());
  EXPECT_GT(result.timing->median_ms, 0);

  KernelVariant edited = original;
  edited.source += "\n// changed\n";
  const EvalResult missing = replay.evaluate_compiled(edited, replay.compile_all({edited})[0]);
  EXPECT_EQ(missing.status, CandidateStatus::RuntimeError);
  EXPECT_EQ(missing.message, "not in the recording");
  EXPECT_EQ(replay.misses(), 1);
}

TEST(EvolutionOnReplay, StartsSpaceFillingAndNeverEvaluatesAConfigurationTwice) {
  ReplayEvaluator replay = recorded_sweep();
  testing::TempDir dir;
  RunStore store = RunStore::create(dir.path() / "run");
  Evolution evolution(replay, store, param_operators(), settings(4, 6, 3));
  const EvolutionOutcome outcome = evolution.run();

  EXPECT_EQ(outcome.generations_completed, 4);
  EXPECT_EQ(outcome.stop_reason, "generation limit reached");
  EXPECT_EQ(replay.misses(), 0);
  std::set<std::string> keys;
  std::set<std::string> first_generation_keys;
  for (const CandidateRecord& record : store.list_candidates()) {
    KernelVariant variant{record.source, record.params, record.compile_options, ""};
    EXPECT_TRUE(keys.insert(ReplayEvaluator::key(variant)).second) << "evaluated twice: candidate #" << record.id;
    if (record.generation == 1) {
      EXPECT_EQ(record.operator_name, "sample");
      first_generation_keys.insert(ReplayEvaluator::key(variant));
    }
  }
  EXPECT_EQ(first_generation_keys.size(), 6u);
  EXPECT_EQ(replay.evaluations(), static_cast<int>(keys.size()));
}

TEST(EvolutionOnReplay, StopsWhenTheTimeBudgetIsSpentAndSaysSo) {
  ReplayEvaluator replay = recorded_sweep();
  testing::TempDir dir;
  RunStore store = RunStore::create(dir.path() / "run");
  EvolutionSettings s = settings(50, 6, 5);
  s.time_budget_s = 1e-6;  // spent by the baseline alone
  Evolution evolution(replay, store, param_operators(), s);
  const EvolutionOutcome outcome = evolution.run();
  EXPECT_NE(outcome.stop_reason.find("time budget"), std::string::npos) << outcome.stop_reason;
  EXPECT_LT(outcome.generations_completed, 2);
}

TEST(EvolutionOnReplay, StopsAsConvergedWhenTheOperatorsFindNothingNew) {
  // Local tuning and crossover only: on this small space they run out of new neighbours long
  // before 60 generations, and the search says so instead of idling to the limit.
  ReplayEvaluator replay = recorded_sweep();
  testing::TempDir dir;
  RunStore store = RunStore::create(dir.path() / "run");
  std::vector<std::unique_ptr<Operator>> operators;
  operators.push_back(std::make_unique<TuneOperator>());
  operators.push_back(std::make_unique<CrossoverOperator>());
  Evolution evolution(replay, store, std::move(operators), settings(60, 6, 4));
  const EvolutionOutcome outcome = evolution.run();
  EXPECT_EQ(outcome.stop_reason.rfind("converged", 0), 0u) << outcome.stop_reason;
  EXPECT_LT(outcome.generations_completed, 60);
  const auto generations = store.list_generations();
  ASSERT_GE(generations.size(), 3u);
  EXPECT_EQ(generations[generations.size() - 1].evaluated, 0) << "the last two generations found nothing";
  EXPECT_EQ(generations[generations.size() - 2].evaluated, 0);
}

TEST(EvolutionOnReplay, ResumeDiscardsWorkInFlightAndReEvaluatesNothingRecorded) {
  testing::TempDir dir;
  const auto run_dir = dir.path() / "run";
  {
    ReplayEvaluator replay = recorded_sweep();
    RunStore store = RunStore::create(run_dir);
    Evolution evolution(replay, store, param_operators(), settings(2, 5, 9));
    EXPECT_EQ(evolution.run().generations_completed, 2);
  }
  RunStore store = RunStore::open(run_dir);
  const std::int64_t before = store.count_candidates();
  CandidateRecord in_flight;  // a candidate the killed run was compiling
  in_flight.generation = 3;
  in_flight.operator_name = "tune";
  in_flight.source = read_file(vadd_task().kernel.source);
  in_flight.params = {{"BLOCK", 64}, {"ITEMS", 2}, {"STRIDED", 0}};
  const std::int64_t in_flight_id = store.insert_candidate(in_flight);
  store.update_candidate_status(in_flight_id, CandidateStatus::Compiling);

  ReplayEvaluator replay = recorded_sweep();
  Evolution resumed(replay, store, param_operators(), settings(4, 5, 9));
  const EvolutionOutcome outcome = resumed.run();

  EXPECT_EQ(outcome.generations_completed, 4);
  // Discarded, not evaluated (its id may be reused by a new candidate: SQLite reuses row ids).
  EXPECT_TRUE(store.in_flight_candidates().empty()) << "work in flight must be discarded";
  if (const auto reused = store.get_candidate(in_flight_id)) {
    EXPECT_GE(reused->generation, 3);
  }
  const std::int64_t added = store.count_candidates() - before;
  EXPECT_EQ(replay.evaluations(), static_cast<int>(added)) << "the resumed run re-evaluated recorded candidates";
  EXPECT_EQ(store.last_completed_generation().value_or(-1), 4);
}

}  // namespace
}  // namespace kforge
