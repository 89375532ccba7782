#include "search/operators/sample.h"

#include "search/operators/proposal_batch.h"
#include "search/param_space.h"
#include "search/selection.h"

namespace kforge {

bool SampleOperator::applicable(const Task& task) const {
  return std::any_of(task.params.begin(), task.params.end(),
                     [](const TunableParam& param) { return param.values.size() > 1; });
}

std::vector<Proposal> SampleOperator::propose(OperatorContext& context, const std::vector<const Individual*>&,
                                              int count) {
  // The fittest individual lends its source and options; the configuration is drawn afresh.
  const Individual* base = nullptr;
  for (const auto& individual : context.history)
    if (is_selectable(individual) && (base == nullptr || fitter(individual, *base))) base = &individual;
  if (base == nullptr) return {};
  const ParamSpace space(context.task);
  ProposalBatch batch(context, name(), count);
  // A bounded number of draws: in a nearly exhausted space most draws are already seen.
  for (int draw = 0; draw < count * 20 && !batch.full(); ++draw) {
    const auto params = space.random(context.rng);
    if (!params) break;
    KernelVariant variant = base->variant;
    variant.params = *params;
    batch.add(std::move(variant), {base}, "sampled " + space.key(*params), "uniform draw from the tunable space");
  }
  return batch.take();
}

}  // namespace kforge
