#include <gtest/gtest.h>

#include "search/dedup.h"

namespace kforge {
namespace {

KernelVariant variant(std::string source, ParamValues params = {}, std::vector<std::string> options = {}) {
  return KernelVariant{std::move(source), std::move(params), std::move(options), ""};
}

TEST(Dedup, CommentsAndLayoutDoNotMatter) {
  EXPECT_EQ(variant_identity(variant("int a = 1;  // one\n"), Language::Cuda),
            variant_identity(variant("int  a = 1; /* uno */"), Language::Cuda));
  EXPECT_NE(variant_identity(variant("int a = 1;"), Language::Cuda), variant_identity(variant("int a = 2;"), Language::Cuda));
  EXPECT_EQ(source_identity("x  +  y", Language::OpenCL), source_identity("x + y // sum", Language::OpenCL));
}

TEST(Dedup, ParamsOptionsAndEntryPointMatter) {
  const auto base = variant_identity(variant("k", {{"B", 1}}), Language::Cuda);
  EXPECT_NE(base, variant_identity(variant("k", {{"B", 2}}), Language::Cuda));
  EXPECT_NE(base, variant_identity(variant("k", {{"B", 1}}, {"--use_fast_math"}), Language::Cuda));
  KernelVariant other_entry = variant("k", {{"B", 1}});
  other_entry.kernel = "k2";
  EXPECT_NE(base, variant_identity(other_entry, Language::Cuda));
}

TEST(Dedup, PythonKeepsIndentation) {
  EXPECT_NE(source_identity("if a:\n    b\nc\n", Language::Triton), source_identity("if a:\n    b\n    c\n", Language::Triton));
}

TEST(SeenSet, RemembersIdentities) {
  SeenSet seen(Language::Cuda);
  EXPECT_TRUE(seen.insert(variant("k;", {{"B", 1}})));
  EXPECT_FALSE(seen.insert(variant("k;  // again", {{"B", 1}})));
  EXPECT_TRUE(seen.contains(variant("k;", {{"B", 1}})));
  EXPECT_FALSE(seen.contains(variant("k;", {{"B", 2}})));
  EXPECT_EQ(seen.size(), 1u);
}

}  // namespace
}  // namespace kforge
