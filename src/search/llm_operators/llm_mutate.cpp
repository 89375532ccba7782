#include "search/llm_operators/llm_operators.h"

namespace kforge {

std::optional<Proposal> LlmMutate::propose_one(OperatorContext& context, const std::vector<const Individual*>& parents) {
  if (parents.empty()) return std::nullopt;
  const Individual& parent = *parents.front();
  const std::string diagnosis = session().diagnosis_for(context, parent);
  if (session().exhausted()) return std::nullopt;
  ProposalRequest request{name(), "mutate", mutate_prompt(session().prompt_inputs(context), parent, diagnosis),
                          parent.variant, {parent.id}, "focused change"};
  return session().propose(request, context);
}

}  // namespace kforge
