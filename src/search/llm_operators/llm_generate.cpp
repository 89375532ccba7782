#include "search/llm_operators/llm_operators.h"

namespace kforge {

// Works from the run's best kernel (history is best first), so a fresh idea starts from
// what is already fastest rather than from the original.
std::optional<Proposal> LlmGenerate::propose_one(OperatorContext& context, const std::vector<const Individual*>&) {
  if (context.history.empty() || !context.history.front().median_ms) return std::nullopt;
  const Individual& base = context.history.front();
  const std::string diagnosis = session().diagnosis_for(context, base);
  if (session().exhausted()) return std::nullopt;
  ProposalRequest request{name(), "generate", generate_prompt(session().prompt_inputs(context), base, diagnosis),
                          base.variant, {base.id}, "new version from the diagnosis"};
  return session().propose(request, context);
}

}  // namespace kforge
