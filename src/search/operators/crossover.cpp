#include "search/operators/crossover.h"

#include <algorithm>

#include "search/operators/proposal_batch.h"
#include "search/param_space.h"
#include "search/selection.h"

namespace kforge {
namespace {

// Draws per requested proposal; two parents differing in few params have few distinct children.
constexpr int kAttemptsPerProposal = 20;

const Individual& faster_of(const Individual& a, const Individual& b) {
  if (is_selectable(a) && is_selectable(b)) return fitter(b, a) ? b : a;
  return is_selectable(b) && !is_selectable(a) ? b : a;
}

ParamValues uniform_crossover(const ParamSpace& space, const ParamValues& a, const ParamValues& b,
                              std::mt19937_64& rng) {
  std::bernoulli_distribution from_a(0.5);
  ParamValues child;
  for (const auto& param : space.params()) child[param.name] = from_a(rng) ? a.at(param.name) : b.at(param.name);
  return child;
}

std::string describe(const ParamSpace& space, const ParamValues& child, const ParamValues& a, const ParamValues& b) {
  std::string from_a, from_b;
  for (const auto& param : space.params()) {
    const std::int64_t value = child.at(param.name);
    if (value == a.at(param.name) && value != b.at(param.name)) from_a += (from_a.empty() ? "" : ",") + param.name;
    if (value == b.at(param.name) && value != a.at(param.name)) from_b += (from_b.empty() ? "" : ",") + param.name;
  }
  return space.key(child) + " (" + (from_a.empty() ? "-" : from_a) + " from one parent, " +
         (from_b.empty() ? "-" : from_b) + " from the other)";
}

bool is_copy_of(const KernelVariant& variant, const Individual& parent, const ParamSpace& space) {
  return variant.source == parent.variant.source && variant.options == parent.variant.options &&
         variant.params == space.complete(parent.variant.params);
}

}  // namespace

bool CrossoverOperator::applicable(const Task& task) const {
  return std::count_if(task.params.begin(), task.params.end(),
                       [](const TunableParam& p) { return p.values.size() > 1; }) >= 2;
}

std::vector<Proposal> CrossoverOperator::propose(OperatorContext& context,
                                                 const std::vector<const Individual*>& parents, int count) {
  ProposalBatch batch(context, name(), count);
  if (parents.size() < 2 || count <= 0) return batch.take();
  const Individual& first = *parents[0];
  const Individual& second = *parents[1];
  const Individual& faster = faster_of(first, second);
  const ParamSpace space(context.task);
  const ParamValues a = space.complete(first.variant.params);
  const ParamValues b = space.complete(second.variant.params);
  for (int attempt = 0; attempt < count * kAttemptsPerProposal && !batch.full(); ++attempt) {
    const auto child = space.repair(uniform_crossover(space, a, b, context.rng));
    if (!child) continue;
    KernelVariant variant = faster.variant;
    variant.params = *child;
    if (is_copy_of(variant, first, space) || is_copy_of(variant, second, space)) continue;
    batch.add(std::move(variant), {&first, &second}, describe(space, *child, a, b),
              "combines tunable values of two good configurations, on the faster parent's source");
  }
  return batch.take();
}

}  // namespace kforge
