#include <gtest/gtest.h>

#include "search/builtin_operators.h"
#include "search_test_util.h"

namespace kforge {
namespace {

std::vector<std::string> names_of(const Task& task) {
  std::vector<std::string> names;
  for (const auto& op : builtin_operators(task)) names.push_back(op->name());
  return names;
}

TEST(BuiltinOperators, AllApplyToTheExamples) {
  const std::vector<std::string> all{"sample", "tune", "crossover", "compiler-options", "restrict", "unroll"};
  EXPECT_EQ(names_of(testing::load_example("sgemm", "cuda")), all);
  EXPECT_EQ(names_of(testing::load_example("vector_add", "opencl")), all);
}

TEST(BuiltinOperators, OnlyThoseThatCanDoSomething) {
  // One tunable with two values: tuning works, crossing over cannot make anything new.
  EXPECT_EQ(names_of(testing::load_faulty_correct()),
            (std::vector<std::string>{"sample", "tune", "compiler-options", "restrict", "unroll"}));
  Task triton = testing::load_example("vector_add", "cuda");
  triton.kernel.language = Language::Triton;
  EXPECT_EQ(names_of(triton), (std::vector<std::string>{"sample", "tune", "crossover"}));
}

TEST(BuiltinOperators, ArityMatchesWhatTheyNeed) {
  for (const auto& op : builtin_operators(testing::load_example("sgemm", "opencl")))
    EXPECT_EQ(op->arity(), op->name() == "crossover" ? 2 : op->name() == "sample" ? 0 : 1) << op->name();
}

}  // namespace
}  // namespace kforge
