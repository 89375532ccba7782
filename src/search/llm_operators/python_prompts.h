// The rules part of the LLM system prompt for Python task kinds, whose harness differs from
// the C-family one: Triton kernels get tunables as constexpr keywords and launch options;
// KernelBench problems are rewritten as a ModelNew module.
#pragma once

#include <string>

#include "task/task.h"

namespace kforge {

// Rules for a Triton task, or for a KernelBench-format (PyTorch) task; empty for other languages.
std::string python_task_rules(const Task& task, const std::string& entry_signature);

}  // namespace kforge
