// Builds the resolved plans (plan.h) from a task: the orchestrator evaluates every expression
// of the manifest here, so workers get numbers. A variant whose parameters make an expression
// invalid (a negative extent, a zero launch dimension) throws TaskError from plan_launch; the
// evaluator turns that into the candidate's runtime_error.
#pragma once

#include "protocol/plan.h"

namespace kforge {

TaskPlan plan_task(const Task& task);
LaunchPlan plan_launch(const Task& task, const ProblemSize& size, const ParamValues& params);
// The problem size named `name`; throws TaskError naming the manifest when there is none.
const ProblemSize& find_size(const Task& task, const std::string& name);

}  // namespace kforge
