// best.<ext> is usable as delivered: a win made only of tunable values and build options still
// gives a file that differs from the original, with the values baked in (guarded, so a -D at
// build time still wins) and every build option stated; Triton kernels get their values stated
// and as KFORGE_BEST_PARAMS.
#include <gtest/gtest.h>

#include "report/deliverable.h"

namespace kforge {
namespace {

CandidateRecord tuned_best() {
  CandidateRecord best;
  best.id = 8;
  best.source = "__global__ void vadd(const float* a, float* c) { c[0] = a[0] * BLOCK; }\n";
  best.params = {{"BLOCK", 256}, {"ITEMS", 4}};
  best.compile_options = {"--extra-device-vectorization"};
  return best;
}

TEST(Deliverable, CLikeSourceGetsGuardedDefinesAndItsBuildOptions) {
  const DeliverableInfo info{"vector_add", "1.23x [1.23, 1.24] on NVIDIA H200", {"-lineinfo"}};
  const std::string text = deliverable_source(tuned_best(), Language::Cuda, info);
  EXPECT_NE(text.find("#ifndef BLOCK\n#define BLOCK 256\n#endif\n"), std::string::npos) << text;
  EXPECT_NE(text.find("#define ITEMS 4"), std::string::npos);
  EXPECT_NE(text.find("// Build options: -lineinfo --extra-device-vectorization"), std::string::npos) << text;
  EXPECT_NE(text.find("1.23x [1.23, 1.24]"), std::string::npos);
  // The kernel follows the defines unchanged, so they are in scope where it uses them.
  EXPECT_LT(text.find("#define BLOCK"), text.find("__global__"));
  EXPECT_EQ(text.substr(text.size() - tuned_best().source.size()), tuned_best().source);
}

TEST(Deliverable, TritonKernelsStateTheirValuesAsKeywords) {
  CandidateRecord best = tuned_best();
  best.source = "import triton\n\n@triton.jit\ndef add(x, BLOCK: tl.constexpr):\n    pass";
  const std::string text = deliverable_source(best, Language::Triton, {"vector_add", "", {}});
  EXPECT_EQ(text.find("#define"), std::string::npos);
  EXPECT_NE(text.find("KFORGE_BEST_PARAMS = {\"BLOCK\": 256, \"ITEMS\": 4}"), std::string::npos) << text;
  EXPECT_EQ(text.rfind("# kforge:", 0), 0u) << "a comment first: the module still imports";
}

TEST(Deliverable, BuildOptionsAreTheTasksThenTheCandidates) {
  EXPECT_EQ(build_options(tuned_best(), {"-O3"}), (std::vector<std::string>{"-O3", "--extra-device-vectorization"}));
}

}  // namespace
}  // namespace kforge
