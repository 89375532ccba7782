// Picks the operator for each offspring with adaptive weights: an operator earns credit when
// its offspring beat their parents, and every operator keeps a floor share so none starves
// (an operator that failed early may succeed once the population has moved).
#pragma once

#include <random>
#include <string>
#include <vector>

#include "search/operator.h"

namespace kforge {

struct SchedulerConfig {
  double floor_share = 0.2;  // this share of picks is spread evenly over all operators
  double decay = 0.95;       // old outcomes fade: credit reflects the current population
  double prior_trials = 2;   // each operator starts as if it had this many trials...
  double prior_successes = 1;  // ...with this many improvements (a 50% prior success rate)
};

class OperatorScheduler {
 public:
  explicit OperatorScheduler(std::vector<std::string> operator_names, SchedulerConfig config = {});

  // Index into operator_names of the operator for the next offspring.
  std::size_t pick(std::mt19937_64& rng) const;
  // One offspring of operator `index` was evaluated; `improved`: it beat its best parent.
  void record(std::size_t index, bool improved);
  // Probability with which pick() chooses operator `index` now.
  double probability(std::size_t index) const;
  const std::vector<std::string>& names() const { return names_; }

 private:
  double success_rate(std::size_t index) const;

  std::vector<std::string> names_;
  SchedulerConfig config_;
  std::vector<double> trials_;
  std::vector<double> successes_;
};

// Whether the offspring is correct and faster than every timed parent (a parent that failed
// or was never timed does not count; an offspring of only such parents improves when correct).
bool improved_on_parents(const Individual& offspring, const std::vector<const Individual*>& parents);

}  // namespace kforge
