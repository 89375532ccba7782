// Parent and survivor selection over evaluated individuals. Only correct individuals with a
// timing are ever chosen; lower median_ms is fitter. Pure functions, deterministic given the rng.
#pragma once

#include <random>
#include <vector>

#include "search/operator.h"

namespace kforge {

// Correct and timed: the only individuals selection may choose.
bool is_selectable(const Individual& individual);
// Whether `a` is fitter than `b` (faster; ties go to the older individual, the lower id).
bool fitter(const Individual& a, const Individual& b);

// Faster than the baseline for the purpose of claiming an improvement: the whole 95% CI of
// its speedup (paired rounds against the baseline) is above 1. Ranking still uses medians;
// a faster median inside the noise is not an improvement.
bool significantly_faster(const Individual& individual);

// The best improvement: the fittest selectable individual that is significantly faster than
// the baseline; nullptr when none is.
const Individual* best_improvement(const std::vector<Individual>& pool);

// The selectable individuals, fittest first.
std::vector<const Individual*> ranked(const std::vector<Individual>& pool);

// The fittest of `k` individuals drawn (with replacement) from the selectable ones;
// nullptr when none is selectable.
const Individual* tournament_select(const std::vector<Individual>& pool, int k, std::mt19937_64& rng);

struct PopulationRules {
  int size = 16;               // P
  int elites = 2;              // E: the E best distinct individuals always survive
  double max_share = 1.0 / 3;  // at most this share of P may share one normalised source
};

// Next population from everything evaluated so far, fittest first: the elites, then the
// fittest of the rest, skipping an individual when its source already fills its share of the
// population or when one with the same source and params is already in. Smaller than
// rules.size when too few distinct individuals qualify.
std::vector<Individual> next_population(const std::vector<Individual>& history, const PopulationRules& rules,
                                        Language language);

}  // namespace kforge
