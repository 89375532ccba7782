#include "search/llm_operators/llm_operators.h"

#include "store/source_hash.h"

namespace kforge {

std::optional<Proposal> LlmCrossover::propose_one(OperatorContext& context,
                                                  const std::vector<const Individual*>& parents) {
  if (parents.size() < 2) return std::nullopt;
  // The faster parent is A: edit blocks apply to it and its params carry over.
  const bool first_faster = parents[0]->median_ms.value_or(1e300) <= parents[1]->median_ms.value_or(1e300);
  const Individual& a = first_faster ? *parents[0] : *parents[1];
  const Individual& b = first_faster ? *parents[1] : *parents[0];
  // Two copies of one kernel have nothing to combine; the search draws another operator.
  if (normalize_source(a.variant.source, SourceSyntax::CLike) == normalize_source(b.variant.source, SourceSyntax::CLike))
    return std::nullopt;
  ProposalRequest request{name(), "crossover", crossover_prompt(session().prompt_inputs(context), a, b), a.variant,
                          {a.id, b.id}, "combination of two kernels"};
  return session().propose(request, context);
}

}  // namespace kforge
