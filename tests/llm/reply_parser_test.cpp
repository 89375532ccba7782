#include "llm/reply_parser.h"

#include <gtest/gtest.h>

#include <random>

namespace kforge::llm {
namespace {

const std::string kKernel =
    "__global__ void scale(float* x, float a, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) x[i] *= a;\n"
    "}\n";

TEST(ReplyParser, WholeFileWithStrategyAndRationale) {
  const std::string reply =
      "Sure! Here is my plan.\n\n"
      "STRATEGY: vectorized-loads\n"
      "RATIONALE: The kernel is memory bound; float4 loads cut the\n"
      "number of transactions by four.\n\n"
      "```cuda\n" + kKernel + "```\n"
      "Hope this helps.\n";
  const ParsedReply parsed = parse_reply(reply);
  EXPECT_TRUE(parsed.garbled.empty()) << parsed.garbled;
  EXPECT_EQ(parsed.kind(), ParsedReply::Kind::WholeFile);
  EXPECT_EQ(parsed.strategy, "vectorized-loads");
  EXPECT_EQ(parsed.rationale,
            "The kernel is memory bound; float4 loads cut the number of transactions by four.");
  ASSERT_TRUE(parsed.kernel_file);
  EXPECT_EQ(parsed.kernel_file->language, "cuda");
  EXPECT_EQ(parsed.kernel_file->code, kKernel);
  EXPECT_TRUE(parsed.problems.empty());
}

TEST(ReplyParser, DecoratedFieldsAndMissingFields) {
  EXPECT_EQ(extract_field("**STRATEGY:** `shared-memory tiling`\n", "STRATEGY", false),
            "shared-memory tiling");
  EXPECT_EQ(extract_field("- Strategy: unroll\n", "STRATEGY", false), "unroll");
  EXPECT_EQ(extract_field("RATIONALE:\n\nFewer syncs.\nMore ILP.\n\nOther text", "RATIONALE", true),
            "Fewer syncs. More ILP.");
  EXPECT_EQ(extract_field("RATIONALE: short\nSTRATEGY: x\n", "RATIONALE", true), "short");
  EXPECT_EQ(extract_field("no fields here", "STRATEGY", false), "");
  // A field inside code is not the model's answer.
  EXPECT_EQ(extract_field("```\nSTRATEGY: fake\n```\n", "STRATEGY", false), "");
  const ParsedReply parsed = parse_reply("```cuda\n" + kKernel + "```\n");
  EXPECT_EQ(parsed.strategy, "");
  EXPECT_EQ(parsed.rationale, "");
  EXPECT_EQ(parsed.kind(), ParsedReply::Kind::WholeFile);
}

TEST(ReplyParser, ChoosesTheFullKernelOverSnippets) {
  const std::string full_v2 = kKernel + "// version 2\n__global__ void helper() {}\n";
  const std::string reply = "The old code:\n```cuda\n" + kKernel + "```\n" +
                            "```bash\nnvcc -O3 k.cu\n```\n" +  // not a kernel
                            "The new file:\n```cpp\n" + full_v2 + "```\n" +
                            "The key line:\n```cuda\n__global__ void scale(float4* x)\n```\n";
  const ParsedReply parsed = parse_reply(reply);
  ASSERT_TRUE(parsed.kernel_file);
  EXPECT_EQ(parsed.kernel_file->code, full_v2);
  EXPECT_EQ(parsed.code_blocks.size(), 4u);
}

TEST(ReplyParser, RecognisesOpenClKernels) {
  EXPECT_TRUE(looks_like_kernel("__kernel void add(__global float* a) {}"));
  EXPECT_TRUE(looks_like_kernel("kernel void add(global float* a) {}"));
  EXPECT_FALSE(looks_like_kernel("int kernelvoid = 0; // no kernel here"));
  EXPECT_FALSE(looks_like_kernel("int main() { return 0; }"));
  const ParsedReply parsed =
      parse_reply("```opencl\nkernel void add(global float* a) { a[0] = 1; }\n```\n");
  ASSERT_TRUE(parsed.kernel_file);
  EXPECT_EQ(parsed.kernel_file->language, "opencl");
}

TEST(ReplyParser, TruncatedKernelIsGarbled) {
  const ParsedReply parsed = parse_reply("STRATEGY: x\n```cuda\n__global__ void k() {\n  int i =");
  EXPECT_FALSE(parsed.kernel_file);
  EXPECT_NE(parsed.garbled.find("cut off"), std::string::npos) << parsed.garbled;
}

TEST(ReplyParser, EditBlocksInsideAFence) {
  const std::string reply =
      "STRATEGY: launch-bounds\n"
      "```cuda\n"
      "<<<<<<< SEARCH\n"
      "__global__ void scale(float* x, float a, int n) {\n"
      "=======\n"
      "__global__ void __launch_bounds__(256) scale(float* x, float a, int n) {\n"
      ">>>>>>> REPLACE\n"
      "```\n"
      "and\n"
      "<<<<<<< SEARCH\n"
      "  if (i < n) x[i] *= a;\n"
      "=======\n"
      "  if (i < n) x[i] = x[i] * a;\n"
      ">>>>>>> REPLACE\n";
  const ParsedReply parsed = parse_reply(reply);
  EXPECT_EQ(parsed.kind(), ParsedReply::Kind::Edits);
  EXPECT_FALSE(parsed.kernel_file);  // the fence holds edit markers, not a file
  ASSERT_EQ(parsed.edits.size(), 2u);
  EXPECT_EQ(parsed.edits[0].search, "__global__ void scale(float* x, float a, int n) {\n");
  EXPECT_EQ(parsed.edits[1].replace, "  if (i < n) x[i] = x[i] * a;\n");

  const EditApplication result = apply_edit_blocks(kKernel, parsed.edits);
  EXPECT_TRUE(result.all_applied());
  EXPECT_EQ(result.applied, (std::vector<std::size_t>{0, 1}));
  EXPECT_TRUE(result.applied_fuzzy.empty());
  EXPECT_EQ(result.source,
            "__global__ void __launch_bounds__(256) scale(float* x, float a, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n) x[i] = x[i] * a;\n"
            "}\n");
}

TEST(ReplyParser, MalformedEditBlocksAreReported) {
  const auto parsed = extract_edit_blocks(
      "<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n"          // no divider
      "<<<<<<< SEARCH\nb\n=======\nc\n>>>>>>> REPLACE\n"  // fine
      "<<<<<<< SEARCH\nd\n=======\ne\n");               // cut off
  ASSERT_EQ(parsed.blocks.size(), 1u);
  EXPECT_EQ(parsed.blocks[0].search, "b\n");
  ASSERT_EQ(parsed.problems.size(), 2u);
  EXPECT_NE(parsed.problems[0].find("edit block 1 has no ======="), std::string::npos);
  EXPECT_NE(parsed.problems[1].find("edit block 3 is unterminated"), std::string::npos);
}

TEST(EditApplier, ReportsTheBlockThatDoesNotApply) {
  const std::vector<EditBlock> edits = {
      {"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n",
       "  int i = blockIdx.x * 256 + threadIdx.x;\n"},
      {"  float y = x[i];\n", "  float y = __ldg(&x[i]);\n"},  // not in the source
      {"}\n", "}\n// end\n"},
  };
  const EditApplication result = apply_edit_blocks(kKernel, edits);
  EXPECT_FALSE(result.all_applied());
  EXPECT_EQ(result.applied, (std::vector<std::size_t>{0, 2}));
  ASSERT_EQ(result.failed.size(), 1u);
  EXPECT_EQ(result.failed[0].index, 1u);
  EXPECT_NE(result.failed[0].reason.find("not found"), std::string::npos) << result.failed[0].reason;
  EXPECT_NE(result.failed[0].reason.find("float y = x[i];"), std::string::npos);
  EXPECT_NE(result.source.find("blockIdx.x * 256"), std::string::npos);
  EXPECT_NE(result.source.find("// end\n"), std::string::npos);
}

TEST(EditApplier, MatchesIgnoringWhitespaceAndReindents) {
  const std::string source =
      "__global__ void k(float* x) {\n"
      "    int i = threadIdx.x;\n"
      "\n"
      "    x[i]  =  0.0f;\n"
      "}\n";
  // The model dropped the blank line, used 2-space indent and different inner spacing.
  const std::vector<EditBlock> edits = {
      {"  int i = threadIdx.x;\n  x[i] = 0.0f;\n",
       "  int i = threadIdx.x;\n  if (i < 32) {\n    x[i] = 1.0f;\n  }\n"}};
  const EditApplication result = apply_edit_blocks(source, edits);
  ASSERT_TRUE(result.all_applied()) << result.failed[0].reason;
  EXPECT_EQ(result.applied_fuzzy, (std::vector<std::size_t>{0}));
  EXPECT_EQ(result.source,
            "__global__ void k(float* x) {\n"
            "    int i = threadIdx.x;\n"
            "    if (i < 32) {\n"
            "      x[i] = 1.0f;\n"
            "    }\n"
            "}\n");
}

TEST(EditApplier, AmbiguousAndEmptySearchesFail) {
  const std::string source = "a();\nb();\na();\n";
  const EditApplication result =
      apply_edit_blocks(source, {{"a();\n", "c();\n"}, {"\n", "x\n"}, {"b();\n", "B();\n"}});
  ASSERT_EQ(result.failed.size(), 2u);
  EXPECT_EQ(result.failed[0].index, 0u);
  EXPECT_NE(result.failed[0].reason.find("matches 2 places"), std::string::npos);
  EXPECT_EQ(result.failed[1].index, 1u);
  EXPECT_NE(result.failed[1].reason.find("empty"), std::string::npos);
  EXPECT_EQ(result.source, "a();\nB();\na();\n");
}

TEST(EditApplier, KeepsAMissingFinalNewlineAndAppliesInSequence) {
  const EditApplication result =
      apply_edit_blocks("x = 1;\ny = 2;", {{"y = 2;\n", "y = 3;\n"}, {"y = 3;\n", "y = 4;\n"}});
  EXPECT_TRUE(result.all_applied());
  EXPECT_EQ(result.source, "x = 1;\ny = 4;");
}

TEST(ReplyParser, IdeasList) {
  const std::string reply =
      "Here are ideas:\n"
      "1. **Tile** the matrix in shared memory\n"
      "   so each element is loaded once.\n"
      "2) Use float4 loads\n"
      "\n"
      "```cuda\n"
      "1. not an idea, code\n"
      "```\n"
      "3. Unroll the inner loop by 4\n"
      "Some closing remark.\n"
      "10. Use warp shuffles for the reduction\n";
  const auto ideas = extract_ideas(reply);
  ASSERT_EQ(ideas.size(), 4u);
  EXPECT_EQ(ideas[0], "Tile the matrix in shared memory so each element is loaded once.");
  EXPECT_EQ(ideas[1], "Use float4 loads");
  EXPECT_EQ(ideas[2], "Unroll the inner loop by 4");
  EXPECT_EQ(ideas[3], "Use warp shuffles for the reduction");
  EXPECT_EQ(parse_reply(reply).ideas, ideas);
  EXPECT_TRUE(extract_ideas("no list\n1.5 is a number\n").empty());
}

TEST(ReplyParser, GarbledReplies) {
  EXPECT_EQ(detect_garbled(""), "empty reply");
  EXPECT_EQ(detect_garbled("  \n\t\n"), "empty reply");
  std::string loop;
  for (int i = 0; i < 40; ++i) loop += "x[i] = x[i] + 1.0f;\n";
  EXPECT_NE(detect_garbled(loop).find("over and over"), std::string::npos);
  std::string binary(400, '\x01');
  EXPECT_NE(detect_garbled(binary).find("binary"), std::string::npos);
  EXPECT_NE(detect_garbled(std::string(200, '\xff')).find("binary"), std::string::npos);
  // Normal code with a few repeated lines and some non-ASCII is fine.
  EXPECT_EQ(detect_garbled(kKernel + kKernel + "// naïve → fast ✓\n"), "");
  EXPECT_EQ(parse_reply("").garbled, "empty reply");
  EXPECT_EQ(parse_reply("").kind(), ParsedReply::Kind::None);
}

}  // namespace
}  // namespace kforge::llm

namespace kforge::llm {
namespace {

// Random mixtures of the syntax the parser cares about must never crash or throw.
TEST(ReplyParser, SurvivesRandomReplies) {
  const std::vector<std::string> pieces = {
      "```cuda\n", "```\n", "~~~\n", "<<<<<<< SEARCH\n", "=======\n", ">>>>>>> REPLACE\n",
      "STRATEGY: x\n", "RATIONALE:\n", "1. idea\n", "   more\n", "__global__ void k() {}\n",
      "kernel void", "\n", "  ", "\xff\xfe", "\r\n", "a();\n", "", "2)", "**"};
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string reply;
    const int count = static_cast<int>(rng() % 30);
    for (int i = 0; i < count; ++i) reply += pieces[rng() % pieces.size()];
    const ParsedReply parsed = parse_reply(reply);
    const EditApplication applied = apply_edit_blocks(reply, parsed.edits);
    EXPECT_EQ(applied.applied.size() + applied.failed.size(), parsed.edits.size());
  }
}

}  // namespace
}  // namespace kforge::llm
