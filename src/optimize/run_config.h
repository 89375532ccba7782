// One run's whole configuration: what `kforge optimize` was asked to do (the task, the search,
// the evaluation, the LLM, the final verification, profiling). It is stored in run.db once, at
// the start (settings key "run_config", as JSON mapped in run_config.cpp and nowhere else), and
// `--resume` reads it back instead of rebuilding it from the command line, so a resumed run is
// the run that was started. Flags given again on resume override the stored values (the CLI
// applies that rule, src/cli/optimize_flags).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "optimize/task_options.h"
#include "search/evolution.h"
#include "store/run_store.h"

namespace kforge::optimize {

struct RunConfig {
  std::string task_manifest;       // absolute path of the task's kforge.toml (or KernelBench .py)
  std::string task_name;
  EvolutionSettings evolution;     // generations, population, target, time budget, seed, ...
  EvalFlags eval;                  // check timeout, timing cap, seeds, cache flush, device
  int final_seeds = 5;             // fresh inputs per size when re-verifying the best
  std::string llm_spec;            // --llm; empty: $KFORGE_LLM or an API key in the environment; none: off
  double llm_budget_usd = 0;       // --llm-budget-usd; 0: no limit (or $KFORGE_LLM_MAX_COST_USD)
  std::int64_t llm_budget_tokens = 0;  // --llm-budget-tokens; 0: no limit (or $KFORGE_LLM_MAX_TOKENS)
  bool llm_only = false;           // --llm-only: no built-in operators (an error without an LLM)
  bool profile_counters = true;    // false: analytic roofline only, no hardware profiler
  std::string kforge_version;      // the version that started the run
};

nlohmann::json to_json(const RunConfig& config);
// Missing keys keep their defaults, so a config written by an older kforge still reads.
RunConfig run_config_from_json(const nlohmann::json& json);

// Records the config at the start of a run (and the effective one on resume): the "run_config"
// key, and the summary keys (RunSettings) that `kforge runs` and the report read.
void store_run_config(RunStore& store, const RunConfig& config, const std::string& target);
// The stored config; for a run started before "run_config" existed, rebuilt from the summary
// keys and "llm_options" as resume used to.
RunConfig load_run_config(const RunStore& store);

}  // namespace kforge::optimize
