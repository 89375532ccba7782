#include <gtest/gtest.h>

#include <set>

#include "search/operators/crossover.h"
#include "search/operators/tune.h"
#include "search/param_space.h"
#include "search_test_util.h"

namespace kforge {
namespace {

using testing::baseline_of;
using testing::ContextFixture;
using testing::load_example;

int changed_params(const ParamValues& a, const ParamValues& b) {
  int changed = 0;
  for (const auto& [name, value] : a) changed += b.at(name) != value;
  return changed;
}

TEST(Tune, ProposesValidUnseenNeighbours) {
  ContextFixture fixture(load_example("sgemm", "opencl"));
  const ParamSpace space(fixture.task);
  const Individual parent = baseline_of(fixture.task);
  fixture.seen.insert(parent.variant);
  TuneOperator tune;
  auto context = fixture.context();
  std::set<std::string> keys;
  for (int round = 0; round < 5; ++round) {
    const auto proposals = tune.propose(context, {&parent}, 8);
    EXPECT_FALSE(proposals.empty());
    for (const auto& proposal : proposals) {
      EXPECT_TRUE(space.is_valid(proposal.variant.params)) << proposal.strategy;
      EXPECT_FALSE(fixture.seen.contains(proposal.variant)) << proposal.strategy;
      EXPECT_EQ(proposal.variant.source, parent.variant.source);
      EXPECT_GE(changed_params(proposal.variant.params, parent.variant.params), 1);
      EXPECT_LE(changed_params(proposal.variant.params, parent.variant.params), 2);
      EXPECT_EQ(proposal.parent_ids, std::vector<std::int64_t>{parent.id});
      EXPECT_EQ(proposal.operator_name, "tune");
      EXPECT_TRUE(keys.insert(space.key(proposal.variant.params)).second) << "proposed twice";
      fixture.seen.insert(proposal.variant);
    }
  }
}

TEST(Tune, SweepsASmallSpaceUntilExhausted) {
  ContextFixture fixture(load_example("row_softmax", "opencl"));  // 40 configurations
  const ParamSpace space(fixture.task);
  const Individual parent = baseline_of(fixture.task);
  fixture.seen.insert(parent.variant);
  fixture.history = {parent};
  TuneOperator tune;
  auto context = fixture.context();
  const auto sweep = tune.propose(context, {&parent}, 100);
  ASSERT_EQ(sweep.size(), space.size() - 1);  // everything but the parent
  for (std::size_t i = 1; i < sweep.size(); ++i)  // nearest to the best first
    EXPECT_LE(space.distance(sweep[i - 1].variant.params, parent.variant.params),
              space.distance(sweep[i].variant.params, parent.variant.params));
  for (const auto& proposal : sweep) fixture.seen.insert(proposal.variant);
  EXPECT_TRUE(tune.propose(context, {&parent}, 100).empty());
}

TEST(Tune, NotApplicableWithoutChoices) {
  Task task = load_example("vector_add", "opencl");
  EXPECT_TRUE(TuneOperator().applicable(task));
  task.params.clear();
  EXPECT_FALSE(TuneOperator().applicable(task));
}

TEST(Crossover, ChildrenMixParentsAndStayValid) {
  ContextFixture fixture(load_example("sgemm", "opencl"));
  const ParamSpace space(fixture.task);
  Individual a = baseline_of(fixture.task, 1);
  Individual b = baseline_of(fixture.task, 2);
  b.variant.params = {{"BX", 32}, {"BY", 8}, {"SHARED", 1}, {"TK", 16}, {"TM", 4}, {"TN", 2}};
  ASSERT_TRUE(space.is_valid(b.variant.params));
  b.median_ms = 0.5;  // b is faster
  fixture.seen.insert(a.variant);
  fixture.seen.insert(b.variant);
  CrossoverOperator crossover;
  auto context = fixture.context();
  const auto proposals = crossover.propose(context, {&a, &b}, 10);
  EXPECT_GE(proposals.size(), 5u);
  std::set<std::string> keys;
  for (const auto& proposal : proposals) {
    EXPECT_TRUE(space.is_valid(proposal.variant.params)) << proposal.strategy;
    EXPECT_FALSE(fixture.seen.contains(proposal.variant));
    EXPECT_TRUE(keys.insert(space.key(proposal.variant.params)).second);
    EXPECT_EQ(proposal.parent_ids, (std::vector<std::int64_t>{1, 2}));
    for (const auto& [name, value] : proposal.variant.params) {  // every value from a parent unless repaired
      if (value != a.variant.params.at(name) && value != b.variant.params.at(name)) {
        EXPECT_TRUE(name == "TK" || name == "SHARED") << name << " in " << proposal.strategy;
      }
    }
  }
}

TEST(Crossover, TakesTheFasterParentsSourceAndOptions) {
  ContextFixture fixture(load_example("vector_add", "opencl"));
  Individual slow = baseline_of(fixture.task, 1);
  slow.median_ms = 2.0;
  Individual fast = baseline_of(fixture.task, 2);
  fast.variant.source += "\n// rewritten\nint unused_marker;\n";
  fast.variant.options = {"-cl-mad-enable"};
  fast.variant.params = {{"BLOCK", 512}, {"ITEMS", 4}, {"STRIDED", 0}};
  fast.median_ms = 1.0;
  CrossoverOperator crossover;
  auto context = fixture.context();
  const auto proposals = crossover.propose(context, {&slow, &fast}, 6);
  ASSERT_FALSE(proposals.empty());
  for (const auto& proposal : proposals) {
    EXPECT_EQ(proposal.variant.source, fast.variant.source);
    EXPECT_EQ(proposal.variant.options, fast.variant.options);
  }
}

TEST(Crossover, IdenticalParentsGiveNothing) {
  ContextFixture fixture(load_example("vector_add", "opencl"));
  const Individual a = baseline_of(fixture.task, 1), b = baseline_of(fixture.task, 2);
  CrossoverOperator crossover;
  auto context = fixture.context();
  EXPECT_TRUE(crossover.propose(context, {&a, &b}, 4).empty());
}

}  // namespace
}  // namespace kforge
