// `crossover`: each tunable from one of two parents (uniform crossover), repaired to the
// nearest valid configuration; the source and options come from the faster parent.
#pragma once

#include "search/operator.h"

namespace kforge {

class CrossoverOperator : public Operator {
 public:
  std::string name() const override { return "crossover"; }
  int arity() const override { return 2; }
  bool applicable(const Task& task) const override;
  std::vector<Proposal> propose(OperatorContext& context, const std::vector<const Individual*>& parents,
                                int count) override;
};

}  // namespace kforge
