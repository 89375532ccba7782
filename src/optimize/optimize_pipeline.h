// Steps 2..6 of `kforge optimize` for one task (numbered in optimize/pipeline_steps): profile,
// baseline + evolve (the console observer shows those), final verification of the best on
// every size, report.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "optimize/run_config.h"
#include "store/run_store.h"
#include "task/task.h"

namespace kforge::optimize {

// Runs (or resumes) the optimisation of `task` recorded in `store`; returns the summary
// that `--json` prints.
nlohmann::json optimize_task(const Task& task, RunStore& store, const RunConfig& config);

}  // namespace kforge::optimize
