// The built-in (non-LLM) operators that apply to a task.
#pragma once

#include <memory>
#include <vector>

#include "search/operator.h"

namespace kforge {

// tune, crossover, compiler-options, restrict, unroll: those whose applicable(task) holds.
std::vector<std::unique_ptr<Operator>> builtin_operators(const Task& task);

}  // namespace kforge
