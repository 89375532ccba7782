#include "search/operators/proposal_batch.h"

#include "search/dedup.h"

namespace kforge {

ProposalBatch::ProposalBatch(OperatorContext& context, std::string operator_name, int count)
    : context_(context), operator_name_(std::move(operator_name)), count_(count) {}

bool ProposalBatch::accepts(const KernelVariant& variant) const {
  if (full()) return false;
  if (identities_.count(variant_identity(variant, context_.task.kernel.language))) return false;
  return !(context_.already_seen && context_.already_seen(variant));
}

bool ProposalBatch::add(KernelVariant variant, const std::vector<const Individual*>& parents, std::string strategy,
                        std::string rationale) {
  if (!accepts(variant)) return false;
  identities_.insert(variant_identity(variant, context_.task.kernel.language));
  Proposal proposal;
  proposal.variant = std::move(variant);
  for (const Individual* parent : parents) proposal.parent_ids.push_back(parent->id);
  proposal.operator_name = operator_name_;
  proposal.strategy = std::move(strategy);
  proposal.rationale = std::move(rationale);
  proposals_.push_back(std::move(proposal));
  return true;
}

}  // namespace kforge
