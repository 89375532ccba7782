#include "store/source_hash.h"

#include <gtest/gtest.h>

namespace kforge {
namespace {

TEST(SourceHash, CommentsAndLayoutDoNotChangeTheKey) {
  const std::string a = "__global__ void k(float* x) {\n  x[0] = 1; // set\n}\n";
  const std::string b = "/* doc */\n__global__   void k(float* x)\n{\n\tx[0] = 1;\n}";
  // Token boundaries matter: "{" after ")" on a new line vs on the same line.
  EXPECT_EQ(normalize_source("int  a ;  // c\n", SourceSyntax::CLike), "int a ;");
  EXPECT_EQ(dedup_hash(a, {}, {}), dedup_hash(a + "\n\n// trailing\n", {}, {}));
  EXPECT_NE(dedup_hash(a, {}, {}), dedup_hash(b, {}, {}));  // newline placement kept for #lines
}

TEST(SourceHash, StringLiteralsAreKept) {
  EXPECT_EQ(normalize_source("printf(\"a  // b\");", SourceSyntax::CLike), "printf(\"a  // b\");");
  EXPECT_EQ(normalize_source("c = '\\'' ; // x", SourceSyntax::CLike), "c = '\\'' ;");
}

TEST(SourceHash, PreprocessorLinesStaySeparate) {
  EXPECT_EQ(normalize_source("#define N 4\nint x = N;\n", SourceSyntax::CLike),
            "#define N 4\nint x = N;");
}

TEST(SourceHash, PythonKeepsIndentationDropsComments) {
  const std::string a = "def f(x):\n    return x  # done\n\n\n";
  const std::string b = "def f(x):\n    return x\n";
  const std::string c = "def f(x):\nreturn x\n";
  EXPECT_EQ(dedup_hash(a, {}, {}, SourceSyntax::Python), dedup_hash(b, {}, {}, SourceSyntax::Python));
  EXPECT_NE(dedup_hash(b, {}, {}, SourceSyntax::Python), dedup_hash(c, {}, {}, SourceSyntax::Python));
  EXPECT_EQ(normalize_source("s = '# not a comment'\n", SourceSyntax::Python),
            "s = '# not a comment'\n");
}

TEST(SourceHash, ParamsAndOptionsArePartOfTheKey) {
  const std::string s = "k";
  EXPECT_NE(dedup_hash(s, {{"B", 1}}, {}), dedup_hash(s, {{"B", 2}}, {}));
  EXPECT_NE(dedup_hash(s, {}, {"-O3"}), dedup_hash(s, {}, {}));
  EXPECT_EQ(dedup_hash(s, {{"A", 1}, {"B", 2}}, {"-O3"}), dedup_hash(s, {{"B", 2}, {"A", 1}}, {"-O3"}));
}

}  // namespace
}  // namespace kforge
