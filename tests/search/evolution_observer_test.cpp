// The events the evolution reports to its observer, in order, on the device-free replay of a
// recorded sweep (see evolution_replay_test.cpp): the console output of `kforge optimize` is
// built from exactly these, so their sequence is the contract.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "search/evolution.h"
#include "search/evolution_observer.h"
#include "search/operators/sample.h"
#include "search/operators/tune.h"
#include "search/replay_evaluator.h"
#include "support/temp_dir.h"
#include "util/files.h"

namespace kforge {
namespace {

const std::filesystem::path kSource = KFORGE_SOURCE_DIR;

ReplayEvaluator recorded_sweep() {
  return ReplayEvaluator::from_sweep(
      load_task(kSource / "tests/kernels/tunable_vadd/kforge.toml"),
      nlohmann::json::parse(read_file(kSource / "tests/search/data/tunable_vadd_sweep.json")));
}

std::vector<std::unique_ptr<Operator>> operators() {
  std::vector<std::unique_ptr<Operator>> ops;
  ops.push_back(std::make_unique<SampleOperator>());
  ops.push_back(std::make_unique<TuneOperator>());
  return ops;
}

EvolutionSettings settings(int generations, int population) {
  EvolutionSettings s;
  s.generations = generations;
  s.population = population;
  s.seed = 11;
  return s;
}

struct Event {
  std::string kind;
  int generation = -1;           // generation_*, candidate_evaluated
  std::int64_t candidate = 0;    // candidate_evaluated, baseline_ready
  std::size_t index = 0;         // candidate_evaluated
  std::size_t batch_size = 0;    // candidate_evaluated
  std::string detail;            // stopped: the reason; baseline_ready: "store" or "fresh"
};

class RecordingObserver : public EvolutionObserver {
 public:
  std::vector<Event> events;

  void baseline_started() override { events.push_back({"baseline_started"}); }
  void baseline_ready(const Individual& baseline, bool from_store) override {
    events.push_back({"baseline_ready", -1, baseline.id, 0, 0, from_store ? "store" : "fresh"});
  }
  void evolution_started(const EvolutionPlan& plan) override {
    events.push_back({"evolution_started", -1, 0, 0, 0,
                      std::to_string(plan.generations) + "x" + std::to_string(plan.population)});
  }
  void generation_started(int generation) override { events.push_back({"generation_started", generation}); }
  void candidate_evaluated(const Individual& candidate, std::size_t index, std::size_t batch_size) override {
    events.push_back({"candidate_evaluated", candidate.generation, candidate.id, index, batch_size});
  }
  void generation_finished(const GenerationRecord& record, const Individual*) override {
    events.push_back({"generation_finished", record.generation, 0, 0, static_cast<std::size_t>(record.evaluated)});
  }
  void stopped(const std::string& reason) override { events.push_back({"stopped", -1, 0, 0, 0, reason}); }
};

TEST(EvolutionObserver, HearsBaselineEachGenerationEachCandidateAndTheStop) {
  ReplayEvaluator replay = recorded_sweep();
  testing::TempDir dir;
  RunStore store = RunStore::create(dir.path() / "run");
  RecordingObserver observer;
  const EvolutionOutcome outcome = Evolution(replay, store, operators(), settings(3, 4), observer).run();
  ASSERT_EQ(outcome.generations_completed, 3);

  const std::vector<Event>& e = observer.events;
  ASSERT_GE(e.size(), 5u);
  // The baseline: announced, evaluated as candidate 1 of 1 in generation 0, then ready.
  EXPECT_EQ(e[0].kind, "baseline_started");
  EXPECT_EQ(e[1].kind, "candidate_evaluated");
  EXPECT_EQ(e[1].generation, 0);
  EXPECT_EQ(e[1].index, 1u);
  EXPECT_EQ(e[1].batch_size, 1u);
  EXPECT_EQ(e[2].kind, "baseline_ready");
  EXPECT_EQ(e[2].detail, "fresh");
  EXPECT_EQ(e[2].candidate, e[1].candidate);
  EXPECT_EQ(e[3].kind, "evolution_started");
  EXPECT_EQ(e[3].detail, "3x4");

  // Then per generation: started, one event per candidate (indices 1..n of n), finished.
  std::size_t at = 4;
  std::size_t candidates_heard = 1;
  for (int generation = 1; generation <= 3; ++generation) {
    ASSERT_LT(at, e.size());
    EXPECT_EQ(e[at].kind, "generation_started");
    EXPECT_EQ(e[at].generation, generation);
    ++at;
    std::size_t index = 0;
    while (at < e.size() && e[at].kind == "candidate_evaluated") {
      ++index;
      EXPECT_EQ(e[at].generation, generation);
      EXPECT_EQ(e[at].index, index);
      ++at;
      ++candidates_heard;
    }
    ASSERT_LT(at, e.size());
    EXPECT_EQ(e[at].kind, "generation_finished");
    EXPECT_EQ(e[at].generation, generation);
    EXPECT_EQ(e[at].batch_size, index) << "the generation's count matches the candidates heard";
    for (std::size_t k = at - index; k < at; ++k) EXPECT_EQ(e[k].batch_size, index);
    ++at;
  }
  ASSERT_EQ(at + 1, e.size());
  EXPECT_EQ(e[at].kind, "stopped");
  EXPECT_EQ(e[at].detail, "generation limit reached");
  EXPECT_EQ(e[at].detail, outcome.stop_reason);
  EXPECT_EQ(candidates_heard, static_cast<std::size_t>(store.count_candidates()));
}

TEST(EvolutionObserver, HearsTheStoredBaselineOnResumeAndTheTargetStop) {
  ReplayEvaluator replay = recorded_sweep();
  testing::TempDir dir;
  RunStore store = RunStore::create(dir.path() / "run");
  Evolution(replay, store, operators(), settings(1, 3)).run();  // the default observer: silent

  // Resumed with a target the baseline already meets: no candidate is evaluated.
  EvolutionSettings resumed = settings(3, 3);
  resumed.target_speedup = 0.01;
  RecordingObserver observer;
  const EvolutionOutcome outcome = Evolution(replay, store, operators(), resumed, observer).run();

  std::vector<std::string> kinds;
  for (const Event& event : observer.events) kinds.push_back(event.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"baseline_started", "baseline_ready", "evolution_started", "stopped"}));
  EXPECT_EQ(observer.events[1].detail, "store");
  EXPECT_EQ(observer.events.back().detail, "target speedup 0.01x reached");
  EXPECT_EQ(outcome.stop_reason, observer.events.back().detail);
}

}  // namespace
}  // namespace kforge
