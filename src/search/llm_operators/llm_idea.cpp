#include "search/llm_operators/llm_operators.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kforge {

std::size_t ideas_to_keep(std::size_t listed, double keep_pct) {
  if (listed == 0) return 0;
  const auto keep = static_cast<std::size_t>(std::ceil(static_cast<double>(listed) * keep_pct / 100.0));
  return std::clamp<std::size_t>(keep, 1, listed);
}

std::string idea_name(const std::string& idea) {
  std::string name = idea.substr(0, idea.find(':'));
  for (const char* markup : {"**", "__", "`"})
    for (auto at = name.find(markup); at != std::string::npos; at = name.find(markup)) name.erase(at, std::strlen(markup));
  name.erase(0, name.find_first_not_of(" \t"));
  while (!name.empty() && (name.back() == ' ' || name.back() == '.')) name.pop_back();
  return name.size() > 60 ? name.substr(0, 57) + "..." : name;
}

// One ideas call, then one implementation per draw: a round's ideas are implemented across
// the following draws of this operator, each against the parent the ideas were made for.
bool LlmIdea::ask_for_ideas(OperatorContext& context, const Individual& parent) {
  const LlmSearchSettings& settings = session().settings();
  const std::string diagnosis = session().diagnosis_for(context, parent);
  if (session().exhausted()) return false;
  const auto text = session().ask_text(
      name(), "ideas", ideas_prompt(session().prompt_inputs(context), parent, diagnosis, settings.idea_branching),
      parent.id);
  if (!text) return false;
  const std::vector<std::string> ideas = llm::parse_reply(*text).ideas;
  if (ideas.empty()) {
    session().drop(name(), "", "the reply to the ideas request holds no numbered list");
    return false;
  }
  const std::size_t keep = ideas_to_keep(std::min<std::size_t>(ideas.size(), settings.idea_branching), settings.idea_keep_pct);
  for (std::size_t i = 0; i < keep; ++i)
    for (int k = 0; k < settings.implementations_per_idea; ++k) pending_.push_back({ideas[i], parent});
  return true;
}

std::optional<Proposal> LlmIdea::propose_one(OperatorContext& context, const std::vector<const Individual*>& parents) {
  if (pending_.empty() && (parents.empty() || !ask_for_ideas(context, *parents.front()))) return std::nullopt;
  const PendingIdea next = pending_.front();
  pending_.pop_front();
  const std::string diagnosis = session().diagnosis_for(context, next.parent);
  ProposalRequest request{name(), "implement",
                          implement_prompt(session().prompt_inputs(context), next.parent, diagnosis, next.idea),
                          next.parent.variant, {next.parent.id}, idea_name(next.idea)};
  auto proposal = session().propose(request, context);
  // The idea is the strategy: it is what this round set out to try, whatever the reply calls it.
  if (proposal) {
    if (proposal->rationale.empty()) proposal->rationale = next.idea;
    proposal->strategy = idea_name(next.idea);
  }
  return proposal;
}

}  // namespace kforge
