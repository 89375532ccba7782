// PyTorch baselines: a KernelBench problem's Model in eager mode (the task's own baseline)
// and under torch.compile; for Triton tasks with a PyTorch reference, that reference eager
// and compiled beside the original Triton kernel.
#pragma once

#include <nlohmann/json.hpp>

#include "eval/evaluator.h"
#include "task/task.h"

namespace kforge::optimize {

// The problem's source plus a ModelNew that wraps Model in torch.compile.
std::string torch_compile_candidate(const std::string& problem_source);

// Checks and times the torch.compile baseline against eager in a worker of its own (with a
// timeout long enough for Inductor's first compile); logs one line and returns
// {"eager_ms", "compile_ms", "compile_speedup"} or {"error"}.
nlohmann::json measure_pytorch_baselines(const Task& task, EvalOptions options);

// Triton tasks whose [reference] is a PyTorch function: the original Triton kernel, the
// reference in eager mode and the reference under torch.compile, timed together in one
// worker session. Returns {"triton_ms", "eager_ms", "compile_ms"} or {"error"}; null for
// other tasks.
nlohmann::json measure_reference_baselines(const Task& task, EvalOptions options);

}  // namespace kforge::optimize
