// Steps 2..6 of `kforge optimize` for one task (numbered in optimize/pipeline_steps): profile,
// baseline + evolve (the console observer shows those), final verification of the best on
// every size, report.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "optimize/task_options.h"
#include "search/evolution.h"
#include "store/run_store.h"
#include "task/task.h"

namespace kforge::optimize {

struct OptimizeOptions {
  EvolutionSettings evolution;
  EvalOptions eval;
  int final_seeds = 5;           // fresh inputs per size when re-verifying the best
  std::string llm_spec;          // --llm; empty: $KFORGE_LLM or an API key in the environment; none: off
  double llm_budget_usd = 0;     // --llm-budget-usd; 0: no limit (or $KFORGE_LLM_MAX_COST_USD)
  std::int64_t llm_budget_tokens = 0;  // --llm-budget-tokens; 0: no limit (or $KFORGE_LLM_MAX_TOKENS)
  bool llm_only = false;         // --llm-only: no built-in operators (an error without an LLM)
  EvalFlags flags;               // the command line's evaluation flags (the FMA probe reuses them)
  bool profile_counters = true;  // false: analytic roofline only, no hardware profiler
};

// Runs (or resumes) the optimisation of `task` recorded in `store`; returns the summary
// that `--json` prints.
nlohmann::json optimize_task(const Task& task, RunStore& store, const OptimizeOptions& options);

}  // namespace kforge::optimize
