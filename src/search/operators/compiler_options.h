// `compiler-options`: adds one compiler option to the parent's. CUDA (NVRTC): register caps,
// extra vectorisation, fast math; OpenCL: mad contraction, no signed zeros, relaxed math.
// Fast math only where the task's tolerance allows it (see fast_math_allowed).
#pragma once

#include "search/operator.h"

namespace kforge {

// Relative tolerance that fast-math approximations (about 2 ulp for division and
// transcendentals, flushed denormals) stay inside with room to spare.
inline constexpr double kFastMathMinRtol = 1e-4;

// The task writes floating-point outputs and every one of them tolerates at least
// kFastMathMinRtol relative error.
bool fast_math_allowed(const Task& task);

// The options the operator may add for this task, in a fixed order.
std::vector<std::string> candidate_options(const Task& task);

// `existing` plus `option`: a register cap replaces an existing one; nullopt when the option
// (or one implying it) is already there.
std::optional<std::vector<std::string>> with_option(const std::vector<std::string>& existing,
                                                    const std::vector<std::string>& task_options,
                                                    const std::string& option);

class CompilerOptionsOperator : public Operator {
 public:
  std::string name() const override { return "compiler-options"; }
  int arity() const override { return 1; }
  bool applicable(const Task& task) const override;
  std::vector<Proposal> propose(OperatorContext& context, const std::vector<const Individual*>& parents,
                                int count) override;
};

}  // namespace kforge
