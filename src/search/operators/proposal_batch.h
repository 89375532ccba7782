// Collects an operator's proposals for one call: keeps count, refuses variants seen before in
// the run or already proposed in this batch, and fills in the bookkeeping fields.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "search/operator.h"

namespace kforge {

class ProposalBatch {
 public:
  ProposalBatch(OperatorContext& context, std::string operator_name, int count);

  bool full() const { return static_cast<int>(proposals_.size()) >= count_; }
  // Whether the variant would be accepted (not full, not seen, not yet in the batch).
  bool accepts(const KernelVariant& variant) const;
  // Adds the variant when it is accepted; returns whether it was.
  bool add(KernelVariant variant, const std::vector<const Individual*>& parents, std::string strategy,
           std::string rationale);
  std::vector<Proposal> take() { return std::move(proposals_); }

 private:
  OperatorContext& context_;
  std::string operator_name_;
  int count_;
  std::set<std::string> identities_;
  std::vector<Proposal> proposals_;
};

}  // namespace kforge
