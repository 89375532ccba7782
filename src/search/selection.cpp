#include "search/selection.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "search/dedup.h"

namespace kforge {

bool is_selectable(const Individual& individual) {
  return individual.status == CandidateStatus::Correct && individual.median_ms.has_value();
}

bool fitter(const Individual& a, const Individual& b) {
  if (*a.median_ms != *b.median_ms) return *a.median_ms < *b.median_ms;
  return a.id < b.id;
}

namespace {

std::vector<const Individual*> selectable_of(const std::vector<Individual>& pool) {
  std::vector<const Individual*> selectable;
  for (const auto& individual : pool)
    if (is_selectable(individual)) selectable.push_back(&individual);
  return selectable;
}

}  // namespace

bool significantly_faster(const Individual& individual) {
  return is_selectable(individual) && individual.speedup_ci_low > 1;
}

const Individual* best_improvement(const std::vector<Individual>& pool) {
  for (const Individual* individual : ranked(pool))
    if (significantly_faster(*individual)) return individual;
  return nullptr;
}

std::vector<const Individual*> ranked(const std::vector<Individual>& pool) {
  std::vector<const Individual*> selectable = selectable_of(pool);
  std::sort(selectable.begin(), selectable.end(), [](const Individual* a, const Individual* b) { return fitter(*a, *b); });
  return selectable;
}

const Individual* tournament_select(const std::vector<Individual>& pool, int k, std::mt19937_64& rng) {
  const std::vector<const Individual*> selectable = selectable_of(pool);
  if (selectable.empty()) return nullptr;
  std::uniform_int_distribution<std::size_t> draw(0, selectable.size() - 1);
  const Individual* winner = selectable[draw(rng)];
  for (int round = 1; round < k; ++round) {
    const Individual* contender = selectable[draw(rng)];
    if (fitter(*contender, *winner)) winner = contender;
  }
  return winner;
}

namespace {

// Tracks what the population under construction already holds.
class PopulationBuilder {
 public:
  PopulationBuilder(const PopulationRules& rules, Language language)
      : language_(language),
        capacity_(static_cast<std::size_t>(std::max(rules.size, 0))),
        per_source_cap_(std::max(1, static_cast<int>(std::floor(rules.max_share * rules.size)))) {}

  bool full() const { return chosen_.size() >= capacity_; }
  const std::vector<Individual>& chosen() const { return chosen_; }

  // Adds the individual unless it repeats a chosen source+params or (when `capped`) its
  // source already has its full share.
  bool offer(const Individual& individual, bool capped) {
    const std::string source = source_identity(individual.variant.source, language_);
    const std::string variant_key = source + "|" + params_text(individual.variant.params);
    if (full() || chosen_variants_.count(variant_key)) return false;
    if (capped && per_source_[source] >= per_source_cap_) return false;
    chosen_variants_.insert(variant_key);
    ++per_source_[source];
    chosen_.push_back(individual);
    return true;
  }

 private:
  static std::string params_text(const ParamValues& params) {
    std::string text;
    for (const auto& [name, value] : params) text += name + "=" + std::to_string(value) + ",";
    return text;
  }

  Language language_;
  std::size_t capacity_;
  int per_source_cap_;
  std::map<std::string, int> per_source_;
  std::set<std::string> chosen_variants_;
  std::vector<Individual> chosen_;
};

}  // namespace

std::vector<Individual> next_population(const std::vector<Individual>& history, const PopulationRules& rules,
                                        Language language) {
  const std::vector<const Individual*> candidates = ranked(history);
  PopulationBuilder population(rules, language);
  std::set<const Individual*> taken;
  int elites = 0;
  for (const Individual* individual : candidates) {
    if (elites >= rules.elites || population.full()) break;
    if (population.offer(*individual, /*capped=*/false)) {
      taken.insert(individual);
      ++elites;
    }
  }
  for (const Individual* individual : candidates) {
    if (population.full()) break;
    if (!taken.count(individual)) population.offer(*individual, /*capped=*/true);
  }
  return population.chosen();
}

}  // namespace kforge
