// Search strategies benchmarked offline (Kernel Tuner's simulation mode): the evolution loop runs
// on a ReplayEvaluator over a full exhaustive sweep of the sgemm example recorded on an NVIDIA
// H200 (tests/search/data/sgemm_h200_sweep.json: 1005 configurations, 990 correct; the fastest is
// 4.09x the original). Each strategy gets the same budget of evaluations on many seeds; what it
// finds is compared with the recorded optimum. Replays are deterministic, so the figures below
// are exact for this recording, and a change to the operators or selection that makes the search
// worse shows up here without a GPU. docs/BENCHMARKS.md has the table.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <numeric>

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
constexpr int kSeeds = 12;
constexpr int kGenerations = 5;  // 5 x 8 = 40 evaluations: 4% of the space
constexpr int kPopulation = 8;

Task sgemm_task() { return load_task(kSource / "examples/sgemm/cuda/kforge.toml"); }

const nlohmann::json& recording() {
  static const nlohmann::json sweep =
      nlohmann::json::parse(read_file(kSource / "tests/search/data/sgemm_h200_sweep.json"));
  return sweep;
}

double recorded_optimum() {
  double best = 0;
  for (const auto& entry : recording().at(0).at("configurations"))
    if (entry.value("status", "") == "correct") best = std::max(best, entry.value("speedup", 0.0));
  return best;
}

// The best recorded speedup among the configurations one run evaluated.
double best_found(bool local_search, std::uint64_t seed) {
  ReplayEvaluator replay = ReplayEvaluator::from_sweep(sgemm_task(), recording());
  testing::TempDir dir;
  RunStore store = RunStore::create(dir.path() / "run");
  std::vector<std::unique_ptr<Operator>> operators;
  operators.push_back(std::make_unique<SampleOperator>());
  if (local_search) {
    operators.push_back(std::make_unique<TuneOperator>());
    operators.push_back(std::make_unique<CrossoverOperator>());
  }
  EvolutionSettings settings;
  settings.generations = kGenerations;
  settings.population = kPopulation;
  settings.seed = seed;
  Evolution evolution(replay, store, std::move(operators), settings);
  evolution.run();
  EXPECT_EQ(replay.misses(), 0) << "every configuration the search proposed is in the recording";
  double best = 0;
  for (const CandidateRecord& record : store.list_candidates())
    if (record.status == CandidateStatus::Correct) best = std::max(best, record.metrics.speedup.value_or(0));
  return best;
}

struct Summary {
  double mean = 0, worst = 0;
};

Summary fraction_of_optimum(bool local_search) {
  const double optimum = recorded_optimum();
  std::vector<double> fractions;
  for (int seed = 1; seed <= kSeeds; ++seed) fractions.push_back(best_found(local_search, seed) / optimum);
  return {std::accumulate(fractions.begin(), fractions.end(), 0.0) / kSeeds,
          *std::min_element(fractions.begin(), fractions.end())};
}

TEST(StrategyBenchmark, TheRecordingIsTheWholeSgemmSpace) {
  const ReplayEvaluator replay = ReplayEvaluator::from_sweep(sgemm_task(), recording());
  EXPECT_EQ(replay.recorded(), ParamSpace(replay.task()).size());
  EXPECT_GT(recorded_optimum(), 3.5) << "the H200 recording: the best tile is ~4x the original";
}

TEST(StrategyBenchmark, EvolutionBeatsRandomSamplingOnTheSameBudget) {
  const Summary random = fraction_of_optimum(false);
  const Summary evolution = fraction_of_optimum(true);
  std::cout << "[ strategies ] sgemm on H200, " << kSeeds << " seeds x " << kGenerations * kPopulation
            << " evaluations: random sampling " << random.mean << " of the optimum (worst " << random.worst
            << "), evolution " << evolution.mean << " (worst " << evolution.worst << ")\n";
  EXPECT_GE(evolution.mean, random.mean) << "local search and crossover must pay for their evaluations";
  EXPECT_GT(evolution.mean, 0.85) << "40 of 1005 evaluations find most of the optimum";
}

}  // namespace
}  // namespace kforge
