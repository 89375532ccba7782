// PyTorch (KernelBench-format) tasks are measured against two baselines: the problem's Model
// in eager mode (the task's own baseline) and the same Model under torch.compile.
#pragma once

#include <nlohmann/json.hpp>

#include "eval/evaluator.h"
#include "task/task.h"

namespace kforge::cli {

// The problem's source plus a ModelNew that wraps Model in torch.compile.
std::string torch_compile_candidate(const std::string& problem_source);

// Checks and times the torch.compile baseline against eager in a worker of its own (with a
// timeout long enough for Inductor's first compile); logs one line and returns
// {"eager_ms", "compile_ms", "compile_speedup"} or {"error"}.
nlohmann::json measure_pytorch_baselines(const Task& task, EvalOptions options);

}  // namespace kforge::cli
