#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <set>

#include "search/param_space.h"
#include "search_test_util.h"

namespace kforge {
namespace {

using testing::example_names;
using testing::load_example;

bool obeys_constraints_everywhere(const Task& task, const ParamValues& values) {
  for (const auto& size : task.sizes)
    if (!satisfies_constraints(task, values, size.vars)) return false;
  return true;
}

TEST(ParamSpace, ExampleSpaceSizes) {
  for (const std::string language : {"opencl", "cuda"}) {
    for (const auto& name : example_names()) {
      const Task task = load_example(name, language);
      const ParamSpace space(task);
      const std::uint64_t size = space.size();
      std::cout << "[ space ] " << language << "/" << name << ": " << size << " valid of "
                << space.unconstrained_size() << " combinations" << (size >= 50 ? "  (>= 50)" : "") << "\n";
      EXPECT_GE(size, 1u) << name;
      EXPECT_TRUE(space.is_valid(task.default_params())) << name;
    }
  }
  EXPECT_EQ(ParamSpace(testing::load_faulty_correct()).size(), 2u);
}

TEST(ParamSpace, EnumerateIsExactlyTheValidConfigurations) {
  for (const auto& name : example_names()) {
    const Task task = load_example(name, "opencl");
    const ParamSpace space(task);
    const auto all = space.enumerate();
    std::set<std::string> keys;
    for (const auto& values : all) {
      EXPECT_TRUE(obeys_constraints_everywhere(task, values)) << name << " " << space.key(values);
      keys.insert(space.key(values));
    }
    EXPECT_EQ(keys.size(), all.size()) << name << ": duplicates";
    EXPECT_EQ(all.size(), space.size()) << name;
    EXPECT_EQ(space.enumerate(3).size(), std::min<std::size_t>(3, all.size()));
  }
}

TEST(ParamSpace, RejectsUnlistedValuesAndBrokenConstraints) {
  const Task task = load_example("sgemm", "opencl");
  const ParamSpace space(task);
  ParamValues values = task.default_params();
  values["BX"] = 12;  // not in the list
  EXPECT_FALSE(space.is_valid(values));
  values = task.default_params();
  values["TK"] = 16;  // "SHARED == 1 || TK == 8" with SHARED = 0
  EXPECT_FALSE(space.is_valid(values));
  values["SHARED"] = 1;
  EXPECT_TRUE(space.is_valid(values));
}

TEST(ParamSpace, RandomDrawsAreValid) {
  std::mt19937_64 rng(1);
  for (const auto& name : example_names()) {
    const Task task = load_example(name, "opencl");
    const ParamSpace space(task);
    for (int i = 0; i < 100; ++i) {
      const auto values = space.random(rng);
      ASSERT_TRUE(values) << name;
      EXPECT_TRUE(space.is_valid(*values));
      EXPECT_TRUE(obeys_constraints_everywhere(task, *values)) << name << " " << space.key(*values);
    }
  }
}

TEST(ParamSpace, NeighboursAreValidAndOneParamAway) {
  for (const auto& name : example_names()) {
    const Task task = load_example(name, "opencl");
    const ParamSpace space(task);
    const ParamValues origin = task.default_params();
    const auto neighbours = space.neighbours(origin);
    EXPECT_FALSE(neighbours.empty()) << name;
    for (const auto& neighbour : neighbours) {
      EXPECT_TRUE(space.is_valid(neighbour)) << name;
      int changed = 0;
      for (const auto& [param, value] : neighbour) changed += value != origin.at(param);
      EXPECT_EQ(changed, 1) << name << " " << space.key(neighbour);
      EXPECT_GE(space.distance(origin, neighbour), 1);
      EXPECT_LE(space.distance(origin, neighbour), 2);
    }
  }
}

TEST(ParamSpace, NeighboursIncludeOneAndTwoSteps) {
  const Task task = load_example("vector_add", "opencl");  // BLOCK 32..1024, default 256 (index 3)
  const ParamSpace space(task);
  std::set<std::int64_t> blocks;
  for (const auto& neighbour : space.neighbours(task.default_params()))
    if (neighbour.at("ITEMS") == 1) blocks.insert(neighbour.at("BLOCK"));
  EXPECT_EQ(blocks, (std::set<std::int64_t>{64, 128, 512, 1024}));
}

TEST(ParamSpace, KeyDistanceAndRepair) {
  const Task task = load_example("sgemm", "opencl");
  const ParamSpace space(task);
  EXPECT_EQ(space.key(task.default_params()), "BX=16,BY=16,SHARED=0,TK=8,TM=1,TN=1");
  EXPECT_EQ(space.key({}), space.key(task.default_params()));  // missing params are their defaults
  ParamValues far = task.default_params();
  far["BX"] = 64;  // index 1 -> 3
  far["TM"] = 4;   // index 0 -> 2
  EXPECT_EQ(space.distance(task.default_params(), far), 4);

  ParamValues broken = task.default_params();
  broken["TK"] = 32;  // needs SHARED = 1
  const auto repaired = space.repair(broken);
  ASSERT_TRUE(repaired);
  EXPECT_TRUE(space.is_valid(*repaired));
  EXPECT_EQ(space.distance(broken, *repaired), 1);  // one step fixes it (SHARED=1 or TK=16 is still bad)
}

// A synthetic space of a million combinations: drawing from it must not enumerate it.
Task huge_task() {
  Task task;
  task.name = "huge";
  for (int p = 0; p < 6; ++p) {
    TunableParam param;
    param.name = "P" + std::to_string(p);
    for (int v = 1; v <= 10; ++v) param.values.push_back(v);
    param.default_value = 1;
    task.params.push_back(param);
  }
  task.constraints = {"P0 + P1 + P2 + P3 + P4 + P5 <= n"};
  task.sizes = {ProblemSize{"a", {{"n", 40}}}, ProblemSize{"b", {{"n", 30}}}};
  return task;
}

TEST(ParamSpace, LargeSpacesAreSampledLazily) {
  const Task task = huge_task();
  const ParamSpace space(task);
  EXPECT_EQ(space.unconstrained_size(), 1000000u);
  std::mt19937_64 rng(3);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 50; ++i) {
    const auto values = space.random(rng);
    ASSERT_TRUE(values);
    std::int64_t sum = 0;
    for (const auto& [name, value] : *values) sum += value;
    EXPECT_LE(sum, 30);  // the tighter size's bound holds
  }
  EXPECT_EQ(space.enumerate(5).size(), 5u);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
}

TEST(ParamSpace, RandomGivesUpOnAnEmptySpace) {
  Task task = huge_task();
  task.constraints = {"P0 > 10"};
  std::mt19937_64 rng(3);
  EXPECT_FALSE(ParamSpace(task).random(rng, 100));
}

}  // namespace
}  // namespace kforge
