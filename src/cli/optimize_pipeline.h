// Steps [2/6]..[6/6] of `kforge optimize` for one task: profile, baseline + evolve (the
// Evolution prints those), final verification of the best on every size, report.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "search/evolution.h"
#include "store/run_store.h"
#include "task/task.h"

namespace kforge::cli {

struct OptimizeOptions {
  EvolutionSettings evolution;
  EvalOptions eval;
  int final_seeds = 5;           // fresh inputs per size when re-verifying the best
  std::string llm_spec;          // empty: built-in operators only
};

// Runs (or resumes) the optimisation of `task` recorded in `store`; returns the summary
// that `--json` prints.
nlohmann::json optimize_task(const Task& task, RunStore& store, const OptimizeOptions& options);

}  // namespace kforge::cli
