// What the search needs from an evaluator, and nothing more: the seam between src/search and
// src/eval. `Evaluator` measures on a device; `ReplayEvaluator` (src/search/replay_evaluator.h)
// answers from a recorded run or sweep, so the search loop and its strategies can be tested and
// benchmarked offline (Kernel Tuner's simulation runner is the model).
#pragma once

#include <vector>

#include "eval/result.h"
#include "task/task.h"

namespace kforge {

class CandidateEvaluator {
 public:
  virtual ~CandidateEvaluator() = default;

  virtual const Task& task() const = 0;
  // The original source with default params: the first individual of every search.
  virtual KernelVariant baseline_variant() const = 0;
  virtual std::vector<CompileResult> compile_all(const std::vector<KernelVariant>& variants) = 0;
  // Check and time against the baseline; failures come back as a status, never as an exception.
  virtual EvalResult evaluate_compiled(const KernelVariant& candidate, const CompileResult& compiled) = 0;
};

}  // namespace kforge
