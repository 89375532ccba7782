#include <gtest/gtest.h>

#include <map>

#include "search/selection.h"
#include "search_test_util.h"

namespace kforge {
namespace {

using testing::failed;
using testing::timed;

// Ranking uses medians, but an improvement is claimed only when the speedup's CI is above 1.
TEST(Significance, TheBestImprovementNeedsItsIntervalAboveOne) {
  Individual noise_win = timed(2, 0.9);  // fastest median, but its CI includes 1
  noise_win.speedup = 1.11;
  noise_win.speedup_ci_low = 0.97;
  Individual real_win = timed(3, 0.95);
  real_win.speedup = 1.05;
  real_win.speedup_ci_low = 1.02;
  Individual unknown = timed(4, 0.5);  // no interval (an older record): not an improvement
  unknown.speedup = 2;
  std::vector<Individual> pool{timed(1, 1.0), noise_win, real_win, unknown};
  EXPECT_EQ(ranked(pool).front()->id, 4);  // medians still rank
  EXPECT_FALSE(significantly_faster(noise_win));
  EXPECT_FALSE(significantly_faster(unknown));
  EXPECT_TRUE(significantly_faster(real_win));
  ASSERT_NE(best_improvement(pool), nullptr);
  EXPECT_EQ(best_improvement(pool)->id, 3);
  EXPECT_EQ(best_improvement({timed(1, 1.0), noise_win}), nullptr);
}

TEST(Tournament, NeverPicksFailures) {
  std::vector<Individual> pool{failed(1), failed(2, CandidateStatus::CompileError), timed(3, 5.0), failed(4, CandidateStatus::Timeout)};
  std::mt19937_64 rng(1);
  for (int i = 0; i < 500; ++i) EXPECT_EQ(tournament_select(pool, 3, rng)->id, 3);
}

TEST(Tournament, NothingSelectableGivesNull) {
  std::vector<Individual> pool{failed(1), failed(2)};
  std::mt19937_64 rng(1);
  EXPECT_EQ(tournament_select(pool, 2, rng), nullptr);
  EXPECT_EQ(tournament_select({}, 2, rng), nullptr);
}

TEST(Tournament, FavoursFaster) {
  std::vector<Individual> pool;
  for (int i = 1; i <= 10; ++i) pool.push_back(timed(i, i));  // id 1 is the fastest
  std::mt19937_64 rng(2);
  std::map<std::int64_t, int> wins;
  for (int i = 0; i < 2000; ++i) ++wins[tournament_select(pool, 3, rng)->id];
  EXPECT_GT(wins[1], wins[5]);
  EXPECT_GT(wins[5], wins[10]);
  EXPECT_GT(wins[1], 300);  // 1 - 0.9^3 = 27% expected
}

TEST(Tournament, DeterministicGivenTheSeed) {
  std::vector<Individual> pool;
  for (int i = 1; i <= 10; ++i) pool.push_back(timed(i, 10.0 - i));
  std::mt19937_64 a(9), b(9);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(tournament_select(pool, 2, a)->id, tournament_select(pool, 2, b)->id);
}

TEST(NextPopulation, ElitesSurviveAndFailuresNever) {
  std::vector<Individual> history{failed(1), timed(2, 3.0, "a"), timed(3, 1.0, "b"), timed(4, 2.0, "c"), failed(5)};
  const auto population = next_population(history, {.size = 3, .elites = 1, .max_share = 1.0}, Language::Cuda);
  ASSERT_EQ(population.size(), 3u);
  EXPECT_EQ(population[0].id, 3);
  EXPECT_EQ(population[1].id, 4);
  EXPECT_EQ(population[2].id, 2);
}

TEST(NextPopulation, DiversityCapLimitsCopiesOfOneSource) {
  std::vector<Individual> history;
  // Twelve fast tunings of one source, then slower individuals of other sources.
  for (int i = 0; i < 12; ++i) history.push_back(timed(i + 1, 1.0 + i * 0.01, "same", {{"B", i}}));
  for (int i = 0; i < 8; ++i) history.push_back(timed(100 + i, 5.0 + i, "other" + std::to_string(i % 4), {{"B", i}}));
  const PopulationRules rules{.size = 9, .elites = 2, .max_share = 1.0 / 3};
  const auto population = next_population(history, rules, Language::Cuda);
  ASSERT_EQ(population.size(), 9u);
  std::map<std::string, int> per_source;
  for (const auto& individual : population) ++per_source[individual.variant.source];
  for (const auto& [source, count] : per_source) EXPECT_LE(count, 3) << source;
  EXPECT_EQ(population[0].id, 1);  // the best still comes first
  EXPECT_EQ(population[1].id, 2);
}

TEST(NextPopulation, SourcesDifferingOnlyInLayoutCountAsOne) {
  std::vector<Individual> history{timed(1, 1.0, "a + b;", {{"B", 1}}), timed(2, 1.1, "a + b;  // faster?", {{"B", 2}}),
                                  timed(3, 1.2, "a    +  b;", {{"B", 3}}), timed(4, 9.0, "c;", {})};
  const auto population = next_population(history, {.size = 4, .elites = 0, .max_share = 0.5}, Language::Cuda);
  ASSERT_EQ(population.size(), 3u);  // two of the a+b family, then c
  EXPECT_EQ(population[2].id, 4);
}

TEST(NextPopulation, SameSourceAndParamsWithOtherOptionsIsSkipped) {
  Individual first = timed(1, 1.0, "k", {{"B", 1}});
  Individual second = timed(2, 1.5, "k", {{"B", 1}});
  second.variant.options = {"--use_fast_math"};
  Individual third = timed(3, 2.0, "k", {{"B", 2}});
  const auto population = next_population({first, second, third}, {.size = 3, .elites = 2, .max_share = 1.0},
                                          Language::Cuda);
  ASSERT_EQ(population.size(), 2u);
  EXPECT_EQ(population[0].id, 1);
  EXPECT_EQ(population[1].id, 3);
}

TEST(NextPopulation, ElitesIgnoreTheCap) {
  std::vector<Individual> history;
  for (int i = 0; i < 6; ++i) history.push_back(timed(i + 1, 1.0 + i, "same", {{"B", i}}));
  const auto population = next_population(history, {.size = 6, .elites = 4, .max_share = 1.0 / 6}, Language::Cuda);
  EXPECT_EQ(population.size(), 4u);  // the four elites; the cap (1) stops the rest
}

}  // namespace
}  // namespace kforge
