// KernelBench-format problems: a .py defining `class Model(nn.Module)`, `get_inputs()` and
// `get_init_inputs()`. The manifest is implicit: the task's reference and baseline are Model,
// a candidate is a module defining ModelNew (python/kforge_worker.py builds the inputs).
#pragma once

#include <filesystem>
#include <string_view>

#include "task/task.h"

namespace kforge {

// Whether `source` defines Model, get_inputs and get_init_inputs at top level.
bool is_kernelbench_source(std::string_view source);
bool is_kernelbench_problem(const std::filesystem::path& file);
// Whether `source` defines `class ModelNew` at top level (a candidate for a problem).
bool defines_model_new(std::string_view source);

// The implicit task of a problem file: language pytorch, kernel "Model", one size "default",
// no [[args]] (inputs come from get_inputs) and no tunables. Throws TaskError if `file` is
// not a KernelBench problem.
Task kernelbench_task(const std::filesystem::path& file);

}  // namespace kforge
