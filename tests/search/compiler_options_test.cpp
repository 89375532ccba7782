#include <gtest/gtest.h>

#include <algorithm>

#include "search/operators/compiler_options.h"
#include "search_test_util.h"

namespace kforge {
namespace {

using testing::baseline_of;
using testing::ContextFixture;
using testing::load_example;

bool contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

TEST(FastMath, FollowsTheTolerance) {
  EXPECT_TRUE(fast_math_allowed(load_example("vector_add", "cuda")));   // f32 default: 1e-4 relative
  EXPECT_TRUE(fast_math_allowed(load_example("sum_reduction", "cuda")));  // rtol 5e-4; its u32 counter is exact
  EXPECT_FALSE(fast_math_allowed(load_example("histogram", "cuda")));   // integer outputs only
  Task strict = load_example("vector_add", "opencl");
  strict.tolerance = Tolerance{1e-6, 1e-6};
  EXPECT_FALSE(fast_math_allowed(strict));
  EXPECT_FALSE(contains(candidate_options(strict), "-cl-fast-relaxed-math"));
  EXPECT_TRUE(contains(candidate_options(strict), "-cl-mad-enable"));
  Task f64 = load_example("vector_add", "cuda");
  for (auto& arg : f64.args)
    if (arg.role != ArgRole::Scalar) arg.dtype = DType::F64;  // default f64 tolerance is 1e-9
  EXPECT_FALSE(fast_math_allowed(f64));
  EXPECT_FALSE(contains(candidate_options(f64), "--use_fast_math"));
  EXPECT_TRUE(contains(candidate_options(load_example("vector_add", "cuda")), "--use_fast_math"));
}

TEST(WithOption, CombinesWithoutDuplicatesOrConflicts) {
  EXPECT_EQ(*with_option({"--use_fast_math"}, {}, "--maxrregcount=64"),
            (std::vector<std::string>{"--use_fast_math", "--maxrregcount=64"}));
  EXPECT_EQ(*with_option({"--maxrregcount=32", "-lineinfo"}, {}, "--maxrregcount=128"),
            (std::vector<std::string>{"-lineinfo", "--maxrregcount=128"}));
  EXPECT_FALSE(with_option({"--maxrregcount=64"}, {}, "--maxrregcount=64"));
  EXPECT_FALSE(with_option({"-use_fast_math"}, {}, "--use_fast_math"));  // same option, other spelling
  EXPECT_FALSE(with_option({}, {"-use_fast_math"}, "--use_fast_math"));  // the task already has it
  EXPECT_FALSE(with_option({}, {"--maxrregcount=40"}, "--maxrregcount=64"));
  EXPECT_FALSE(with_option({"-cl-fast-relaxed-math"}, {}, "-cl-mad-enable"));  // implied already
}

TEST(CompilerOptions, ProposesEachUnseenOptionOnce) {
  ContextFixture fixture(load_example("row_softmax", "cuda"));
  const Individual parent = baseline_of(fixture.task);
  CompilerOptionsOperator op;
  auto context = fixture.context();
  const auto first = op.propose(context, {&parent}, 3);
  ASSERT_EQ(first.size(), 3u);
  for (const auto& proposal : first) fixture.seen.insert(proposal.variant);
  const auto rest = op.propose(context, {&parent}, 10);
  EXPECT_EQ(first.size() + rest.size(), candidate_options(fixture.task).size());
  for (const auto& proposal : rest) {
    EXPECT_FALSE(fixture.seen.contains(proposal.variant));
    EXPECT_EQ(proposal.variant.options.size(), 1u);
    EXPECT_EQ(proposal.variant.params, parent.variant.params);
  }
}

TEST(CompilerOptions, NotForOtherLanguages) {
  Task task = load_example("vector_add", "cuda");
  task.kernel.language = Language::Triton;
  EXPECT_FALSE(CompilerOptionsOperator().applicable(task));
}

}  // namespace
}  // namespace kforge
