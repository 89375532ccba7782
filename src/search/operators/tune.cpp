#include "search/operators/tune.h"

#include <algorithm>

#include "search/operators/proposal_batch.h"
#include "search/param_space.h"
#include "search/selection.h"

namespace kforge {
namespace {

// Spaces up to this many combinations are cheap enough to enumerate on every call.
constexpr std::uint64_t kEnumerableCombinations = 1 << 16;
// Draws per requested proposal before giving up on finding unseen neighbours.
constexpr int kAttemptsPerProposal = 50;
constexpr double kTwoParamChance = 0.3;     // otherwise one param moves
constexpr double kRandomValueChance = 0.2;  // otherwise a +-1 step in the value list

std::string describe_change(const ParamSpace& space, const ParamValues& from, const ParamValues& to) {
  std::string text;
  for (const auto& param : space.params()) {
    const std::int64_t before = from.at(param.name), after = to.at(param.name);
    if (before == after) continue;
    text += (text.empty() ? "" : ", ") + param.name + " " + std::to_string(before) + "->" + std::to_string(after);
  }
  return text;
}

std::int64_t moved_value(const ParamSpace& space, const TunableParam& param, std::int64_t value, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> chance(0, 1);
  const auto index = space.index_of(param, value);
  if (!index || chance(rng) < kRandomValueChance) {
    std::uniform_int_distribution<std::size_t> pick(0, param.values.size() - 1);
    return param.values[pick(rng)];
  }
  const bool up = (chance(rng) < 0.5 && *index + 1 < param.values.size()) || *index == 0;
  return param.values[up ? *index + 1 : *index - 1];
}

ParamValues mutate(const ParamSpace& space, const ParamValues& parent, std::mt19937_64& rng) {
  std::vector<const TunableParam*> movable;
  for (const auto& param : space.params())
    if (param.values.size() > 1) movable.push_back(&param);
  std::shuffle(movable.begin(), movable.end(), rng);
  std::uniform_real_distribution<double> chance(0, 1);
  const std::size_t moves = std::min<std::size_t>(movable.size(), chance(rng) < kTwoParamChance ? 2 : 1);
  ParamValues child = parent;
  for (std::size_t i = 0; i < moves; ++i)
    child[movable[i]->name] = moved_value(space, *movable[i], parent.at(movable[i]->name), rng);
  return child;
}

KernelVariant with_params(const Individual& parent, ParamValues params) {
  KernelVariant variant = parent.variant;
  variant.params = std::move(params);
  return variant;
}

// Configurations of the parent's source and options not yet seen; nullopt when there are more
// than `count` of them or the space is too large to list.
std::optional<std::vector<ParamValues>> unseen_if_few(const ParamSpace& space, const Individual& parent,
                                                      const ProposalBatch& batch, int count) {
  if (space.unconstrained_size() > kEnumerableCombinations) return std::nullopt;
  std::vector<ParamValues> unseen;
  for (auto& values : space.enumerate()) {
    if (!batch.accepts(with_params(parent, values))) continue;
    if (static_cast<int>(unseen.size()) >= count) return std::nullopt;
    unseen.push_back(std::move(values));
  }
  return unseen;
}

void propose_sweep(const ParamSpace& space, const Individual& parent, OperatorContext& context,
                   std::vector<ParamValues> unseen, ProposalBatch& batch) {
  const auto best = ranked(context.history);
  const ParamValues centre = space.complete(best.empty() ? parent.variant.params : best.front()->variant.params);
  std::stable_sort(unseen.begin(), unseen.end(), [&](const ParamValues& a, const ParamValues& b) {
    return space.distance(a, centre) < space.distance(b, centre);
  });
  const ParamValues from = space.complete(parent.variant.params);
  for (auto& values : unseen) {
    const std::string change = describe_change(space, from, values);
    batch.add(with_params(parent, std::move(values)), {&parent}, change,
              "the unexplored configurations fit in the budget: sweep them, nearest to the best first");
  }
}

void propose_mutations(const ParamSpace& space, const Individual& parent, OperatorContext& context, int count,
                       ProposalBatch& batch) {
  const ParamValues from = space.complete(parent.variant.params);
  for (int attempt = 0; attempt < count * kAttemptsPerProposal && !batch.full(); ++attempt) {
    ParamValues child = mutate(space, from, context.rng);
    if (child == from || !space.is_valid(child)) continue;
    const std::string change = describe_change(space, from, child);
    batch.add(with_params(parent, std::move(child)), {&parent}, change,
              "neighbouring tunable values of a good configuration are often better");
  }
}

}  // namespace

bool TuneOperator::applicable(const Task& task) const {
  return std::any_of(task.params.begin(), task.params.end(), [](const TunableParam& p) { return p.values.size() > 1; });
}

std::vector<Proposal> TuneOperator::propose(OperatorContext& context, const std::vector<const Individual*>& parents,
                                            int count) {
  ProposalBatch batch(context, name(), count);
  if (parents.empty() || count <= 0) return batch.take();
  const Individual& parent = *parents.front();
  const ParamSpace space(context.task);
  if (auto unseen = unseen_if_few(space, parent, batch, count)) {
    propose_sweep(space, parent, context, std::move(*unseen), batch);
  } else {
    propose_mutations(space, parent, context, count, batch);
  }
  return batch.take();
}

}  // namespace kforge
