#include "search/operator_scheduler.h"


#include <stdexcept>

#include "search/selection.h"

namespace kforge {

OperatorScheduler::OperatorScheduler(std::vector<std::string> operator_names, SchedulerConfig config)
    : names_(std::move(operator_names)),
      config_(config),
      trials_(names_.size(), 0.0),
      successes_(names_.size(), 0.0) {
  if (names_.empty()) throw std::invalid_argument("OperatorScheduler needs at least one operator");
}

double OperatorScheduler::success_rate(std::size_t index) const {
  return (successes_[index] + config_.prior_successes) / (trials_[index] + config_.prior_trials);
}

double OperatorScheduler::probability(std::size_t index) const {
  double total_rate = 0;
  for (std::size_t i = 0; i < names_.size(); ++i) total_rate += success_rate(i);
  const double even = 1.0 / static_cast<double>(names_.size());
  return config_.floor_share * even + (1 - config_.floor_share) * success_rate(index) / total_rate;
}

std::size_t OperatorScheduler::pick(std::mt19937_64& rng) const {
  std::vector<double> weights(names_.size());
  for (std::size_t i = 0; i < names_.size(); ++i) weights[i] = probability(i);
  std::discrete_distribution<std::size_t> choose(weights.begin(), weights.end());
  return choose(rng);
}

void OperatorScheduler::record(std::size_t index, bool improved) {
  for (std::size_t i = 0; i < names_.size(); ++i) {
    trials_[i] *= config_.decay;
    successes_[i] *= config_.decay;
  }
  trials_[index] += 1;
  if (improved) successes_[index] += 1;
}

bool improved_on_parents(const Individual& offspring, const std::vector<const Individual*>& parents) {
  if (!is_selectable(offspring)) return false;
  for (const Individual* parent : parents)
    if (is_selectable(*parent) && *parent->median_ms <= *offspring.median_ms) return false;
  return true;
}

}  // namespace kforge
