// A small but complete run, written through the public RunStore API, that the report
// tests render: 4 generations, every candidate status, a crossover in the best's lineage,
// per-size results and roofline profiles.
#pragma once

#include "store/run_store.h"
#include "support/temp_dir.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace kforge::testing {

inline const std::string kOriginalSource =
    "__global__ void saxpy(int n, float a, const float* x, float* y) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

inline const std::string kBestSource =
    "__global__ void saxpy(int n, float a, const float4* x, float4* y) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n / 4) {\n"
    "    float4 v = x[i], w = y[i];\n"
    "    y[i] = make_float4(a * v.x + w.x, a * v.y + w.y, a * v.z + w.z, a * v.w + w.w);\n"
    "  }\n"
    "}\n";

struct SampleRun {
  std::int64_t best_id = 0;
  std::int64_t seed_id = 0;
};

// Baseline 2.0 ms; the best (#best_id) runs in 0.5 ms: a 4x speedup.
inline SampleRun make_sample_run(RunStore& store) {
  SampleRun ids;
  RunSettings settings;
  settings.task_name = "saxpy";
  settings.generations = 4;
  settings.population = 6;
  settings.status = "finished";
  settings.kforge_version = "0.1.0";
  store.write_settings(settings);
  store.set_baseline(metrics_from_json({{"median_ms", 2.0},
                      {"profile",
                       {{"bound", "memory"},
                        {"arithmetic_intensity", 0.167},
                        {"achieved_gflops", 120.0},
                        {"achieved_gbps", 720.0},
                        {"peak_gflops", 19500.0},
                        {"peak_gbps", 2039.0}}}}));

  auto add = [&](int generation, const std::string& op, std::vector<std::int64_t> parents,
                 const std::string& source, CandidateStatus status, std::optional<double> ms,
                 const std::string& strategy = "") {
    CandidateRecord c;
    c.generation = generation;
    c.operator_name = op;
    c.parent_ids = std::move(parents);
    c.source = source;
    c.strategy = strategy;
    c.params = {{"BLOCK", 128 << (generation % 3)}};
    const auto id = store.insert_candidate(c);
    CandidateResult result;
    result.status = status;
    if (ms) result.metrics = metrics_from_json({{"median_ms", *ms}, {"speedup", 2.0 / *ms}});
    if (status == CandidateStatus::CompileError) result.status_message = "error: expected ';'";
    store.update_candidate_result(id, result);
    return id;
  };
  double best_ms = 2.0;
  std::int64_t best = 0;
  auto finish = [&](int generation, int evaluated, int correct) {
    GenerationRecord g;
    g.generation = generation;
    g.best_candidate_id = best;
    g.best_median_ms = best_ms;
    g.evaluated = evaluated;
    g.correct = correct;
    store.finish_generation(g);
  };

  store.begin_generation(0);
  ids.seed_id = best = add(0, "seed", {}, kOriginalSource, CandidateStatus::Correct, 2.0, "baseline");
  add(0, "tune", {ids.seed_id}, kOriginalSource + "// b256\n", CandidateStatus::Correct, 1.9);
  best = 2, best_ms = 1.9;
  finish(0, 2, 2);

  store.begin_generation(1);
  const auto g1 = add(1, "tune", {2}, kOriginalSource + "// b512\n", CandidateStatus::Correct, 1.4,
                      "larger blocks");
  add(1, "llm-mutate", {2}, "broken(", CandidateStatus::CompileError, std::nullopt);
  add(1, "llm-mutate", {2}, "wrong", CandidateStatus::Incorrect, 0.3);
  add(1, "restrict", {2}, "__restrict__", CandidateStatus::Correct, 1.6, "restrict pointers");
  best = g1, best_ms = 1.4;
  finish(1, 4, 2);

  store.begin_generation(2);
  const auto other = add(2, "llm-mutate", {g1}, "loop unroll", CandidateStatus::Correct, 1.1, "unroll x4");
  add(2, "llm-mutate", {g1}, "oob", CandidateStatus::RuntimeError, std::nullopt);
  add(2, "tune", {g1}, "slow", CandidateStatus::Timeout, std::nullopt);
  best = other, best_ms = 1.1;
  finish(2, 3, 1);

  store.begin_generation(3);
  ids.best_id = add(3, "crossover", {other, 6}, kBestSource, CandidateStatus::Correct, 0.5,
                    "vectorize loads with float4");
  add(3, "tune", {other}, "t", CandidateStatus::Correct, 0.9);
  CandidateResult best_result;
  best_result.status = CandidateStatus::Correct;
  best_result.metrics = metrics_from_json({{"median_ms", 0.5},
                         {"speedup", 4.0},
                         {"gbps", 1610.0},
                         {"sizes",
                          {{{"name", "small"}, {"median_ms", 0.012}, {"speedup", 1.5}, {"max_abs_err", 0.0}},
                           {{"name", "large"}, {"median_ms", 0.5}, {"speedup", 4.0}, {"max_abs_err", 1e-6}}}}});
  best_result.profile = {{"bound", "memory"},
                         {"arithmetic_intensity", 0.167},
                         {"achieved_gflops", 268.0},
                         {"achieved_gbps", 1610.0},
                         {"peak_gflops", 19500.0},
                         {"peak_gbps", 2039.0}};
  store.update_candidate_result(ids.best_id, best_result);
  best = ids.best_id, best_ms = 0.5;
  finish(3, 2, 2);

  store.insert_candidate(CandidateRecord{});  // in flight when the run stopped

  LlmExchange exchange;
  exchange.provider = "anthropic";
  exchange.model = "claude";
  exchange.input_tokens = 1000;
  exchange.output_tokens = 400;
  exchange.cost_usd = 0.12;
  store.add_llm_exchange(exchange);
  return ids;
}

}  // namespace kforge::testing
