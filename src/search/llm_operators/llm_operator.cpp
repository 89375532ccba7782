#include "search/llm_operators/llm_operators.h"

namespace kforge {

std::vector<Proposal> LlmOperator::propose(OperatorContext& context, const std::vector<const Individual*>& parents,
                                           int count) {
  std::vector<Proposal> proposals;
  for (int i = 0; i < count && !session_->exhausted(); ++i) {
    std::optional<Proposal> proposal;
    if (const Individual* failed = repair_target(*session_, context)) proposal = propose_repair(*session_, context, *failed);
    if (!proposal) proposal = propose_one(context, parents);
    if (!proposal) break;
    proposals.push_back(std::move(*proposal));
  }
  return proposals;
}

std::vector<std::unique_ptr<Operator>> make_llm_operators(const std::shared_ptr<LlmSession>& session) {
  std::vector<std::unique_ptr<Operator>> operators;
  operators.push_back(std::make_unique<LlmGenerate>(session));
  operators.push_back(std::make_unique<LlmMutate>(session));
  operators.push_back(std::make_unique<LlmCrossover>(session));
  operators.push_back(std::make_unique<LlmReflect>(session));
  operators.push_back(std::make_unique<LlmIdea>(session));
  return operators;
}

}  // namespace kforge
