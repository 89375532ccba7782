#include "search/llm_operators/llm_operators.h"

#include <fmt/format.h>

namespace kforge {
namespace {

const Individual* find(const std::vector<Individual>& history, std::int64_t id) {
  for (const auto& individual : history)
    if (individual.id == id) return &individual;
  return nullptr;
}

bool failed(const Individual& individual) {
  return is_failure(individual.status);
}

// How many repairs deep `individual` already is: llm-reflect ancestors in a row.
int repair_depth(const std::vector<Individual>& history, const Individual& individual) {
  int depth = 0;
  for (const Individual* at = &individual; at && at->operator_name == "llm-reflect" && depth < 1000;
       at = at->parent_ids.empty() ? nullptr : find(history, at->parent_ids.front()))
    ++depth;
  return depth;
}

bool already_repaired(const std::vector<Individual>& history, std::int64_t id) {
  for (const auto& individual : history)
    if (individual.operator_name == "llm-reflect" && !individual.parent_ids.empty() && individual.parent_ids.front() == id)
      return true;
  return false;
}

}  // namespace

// Only LLM candidates: a failed tuning or compiler-flag variant is not a mistake to explain
// to a model. The history (not this session's memory) says what was repaired, so a resumed
// run does not repeat repairs.
const Individual* repair_target(LlmSession& session, const OperatorContext& context) {
  const Individual* newest = nullptr;
  for (const auto& individual : context.history) {
    if (!failed(individual) || individual.operator_name.rfind("llm-", 0) != 0) continue;
    if ((newest && newest->id > individual.id) || session.repair_claimed(individual.id)) continue;
    if (already_repaired(context.history, individual.id)) continue;
    if (repair_depth(context.history, individual) >= session.settings().reflect_rounds) continue;
    newest = &individual;
  }
  if (newest) session.claim_repair(newest->id);
  return newest;
}

std::optional<Proposal> propose_repair(LlmSession& session, OperatorContext& context, const Individual& failed_one) {
  const Individual* parent =
      failed_one.parent_ids.empty() ? nullptr : find(context.history, failed_one.parent_ids.front());
  if (parent && !parent->median_ms) parent = nullptr;  // a diff against a broken kernel explains nothing
  ProposalRequest request{"llm-reflect", "reflect", reflect_prompt(session.prompt_inputs(context), failed_one, parent),
                          failed_one.variant, {failed_one.id},
                          fmt::format("repair of #{}", failed_one.id)};
  return session.propose(request, context);
}

// LlmOperator::propose has already made the pending repair, if there was one.
std::optional<Proposal> LlmReflect::propose_one(OperatorContext&, const std::vector<const Individual*>&) {
  return std::nullopt;
}

}  // namespace kforge
