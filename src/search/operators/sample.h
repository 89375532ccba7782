// `sample`: a uniformly drawn valid configuration of the tunables on the fittest source. The
// first generation is all samples (space-filling start, so the search does not begin as a
// local walk around the baseline); later the scheduler keeps drawing some for exploration.
#pragma once

#include "search/operator.h"

namespace kforge {

class SampleOperator : public Operator {
 public:
  std::string name() const override { return "sample"; }
  int arity() const override { return 0; }
  bool applicable(const Task& task) const override;
  std::vector<Proposal> propose(OperatorContext& context, const std::vector<const Individual*>& parents,
                                int count) override;
};

}  // namespace kforge
