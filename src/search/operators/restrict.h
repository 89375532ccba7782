// `restrict`: marks every pointer parameter of the kernel __restrict__ (CUDA, HIP) or restrict
// (OpenCL) that is not already. Safe by construction: kforge passes every buffer argument as
// its own allocation, so no two pointer parameters alias. Lets the compiler keep loaded values
// in registers across stores and use the read-only cache for const inputs.
#pragma once

#include <optional>

#include "search/operator.h"

namespace kforge {

struct RestrictResult {
  std::string source;
  std::vector<std::string> params;  // the parameters that gained the qualifier
};

// The source with the qualifier added; nullopt when the kernel's definition is not found or
// every pointer parameter already has it.
std::optional<RestrictResult> add_restrict(const std::string& source, Language language, const std::string& kernel);

class RestrictOperator : public Operator {
 public:
  std::string name() const override { return "restrict"; }
  int arity() const override { return 1; }
  bool applicable(const Task& task) const override;
  std::vector<Proposal> propose(OperatorContext& context, const std::vector<const Individual*>& parents,
                                int count) override;
};

}  // namespace kforge
