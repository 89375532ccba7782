// `tune`: moves one or two tunable values of the parent to nearby valid values. When the
// unseen part of the space fits in the request, it proposes all of it, nearest to the best first.
#pragma once

#include "search/operator.h"

namespace kforge {

class TuneOperator : public Operator {
 public:
  std::string name() const override { return "tune"; }
  int arity() const override { return 1; }
  bool applicable(const Task& task) const override;
  std::vector<Proposal> propose(OperatorContext& context, const std::vector<const Individual*>& parents,
                                int count) override;
};

}  // namespace kforge
