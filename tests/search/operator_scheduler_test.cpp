#include <gtest/gtest.h>

#include "search/operator_scheduler.h"
#include "search_test_util.h"

namespace kforge {
namespace {

using testing::failed;
using testing::timed;

TEST(OperatorScheduler, StartsEven) {
  OperatorScheduler scheduler({"a", "b", "c", "d"});
  for (std::size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(scheduler.probability(i), 0.25);
}

TEST(OperatorScheduler, SuccessfulOperatorsGainWeightButNoneStarves) {
  const SchedulerConfig config;
  OperatorScheduler scheduler({"good", "bad"}, config);
  for (int i = 0; i < 50; ++i) {
    scheduler.record(0, true);
    scheduler.record(1, false);
  }
  EXPECT_GT(scheduler.probability(0), 0.8);
  EXPECT_GE(scheduler.probability(1), config.floor_share / 2);
  std::mt19937_64 rng(4);
  int picks_of_bad = 0;
  for (int i = 0; i < 2000; ++i) picks_of_bad += scheduler.pick(rng) == 1;
  EXPECT_GT(picks_of_bad, 100);  // >= 10% floor: still drawn
  EXPECT_LT(picks_of_bad, 600);
}

TEST(OperatorScheduler, OldSuccessFades) {
  OperatorScheduler scheduler({"early", "late"});
  for (int i = 0; i < 20; ++i) scheduler.record(0, true);
  for (int i = 0; i < 100; ++i) {
    scheduler.record(0, false);
    scheduler.record(1, true);
  }
  EXPECT_GT(scheduler.probability(1), scheduler.probability(0));
}

TEST(OperatorScheduler, NeedsOperators) { EXPECT_THROW(OperatorScheduler({}), std::invalid_argument); }

TEST(ImprovedOnParents, FasterThanEveryTimedParent) {
  const Individual fast = timed(1, 1.0), slow = timed(2, 2.0), broken = failed(3);
  EXPECT_TRUE(improved_on_parents(fast, {&slow}));
  EXPECT_FALSE(improved_on_parents(slow, {&fast}));
  EXPECT_FALSE(improved_on_parents(fast, {&slow, &fast}));
  EXPECT_TRUE(improved_on_parents(fast, {&broken}));
  EXPECT_FALSE(improved_on_parents(broken, {&slow}));
}

}  // namespace
}  // namespace kforge
