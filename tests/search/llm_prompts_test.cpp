// Prompt building: what every prompt carries (rules, tunables, best ancestors by latency,
// failures), the repair turn's error and diff, and the small helpers behind them.
#include <gtest/gtest.h>

#include "search/llm_operators/entry_kernel.h"
#include "search/llm_operators/line_change.h"
#include "search/llm_operators/llm_operators.h"
#include "search/llm_operators/prompt_builder.h"
#include "task/task.h"
#include "test_llm_support.h"
#include "util/files.h"

namespace kforge {
namespace {
using llm_test::fixture_dir;

Individual individual(std::int64_t id, std::optional<double> ms, std::string op, std::string strategy,
                      std::vector<std::int64_t> parents = {}) {
  Individual i;
  i.id = id;
  i.median_ms = ms;
  i.status = ms ? CandidateStatus::Correct : CandidateStatus::CompileError;
  i.speedup = ms ? 1.0 / *ms : 0;
  i.operator_name = std::move(op);
  i.strategy = std::move(strategy);
  i.parent_ids = std::move(parents);
  i.variant.source = "__kernel void vector_add(__global float* a, __global float* b, __global float* c, int n) {}\n";
  return i;
}

class LlmPrompts : public ::testing::Test {
 protected:
  Task task = load_task(fixture_dir() / "kforge.toml");
  DeviceFacts device{"Test GPU", {{"name", "Test GPU"}, {"arch", "test-arch"}}, 123.4};
  std::vector<std::string> dropped{"llm-mutate \"tiles\" (never evaluated): the reply changed the signature"};
  std::vector<Individual> history{individual(1, 1.0, "baseline", "original kernel"),
                                  individual(2, 0.5, "llm-mutate", "float4 loads", {1}),
                                  individual(3, 0.8, "tune", "BLOCK 256->512", {1}),
                                  individual(4, std::nullopt, "llm-generate", "shared tiles", {2}),
                                  individual(5, 0.25, "llm-mutate", "grid stride", {2})};
};

TEST_F(LlmPrompts, AncestorsAreSortedByLatencyAndIncludeTheLineage) {
  const auto ancestors = best_ancestors(history, {5}, 10);
  ASSERT_EQ(ancestors.size(), 4u);  // the failed #4 is no ancestor worth copying
  EXPECT_EQ(ancestors[0]->id, 5);
  EXPECT_EQ(ancestors[1]->id, 2);
  EXPECT_EQ(ancestors[2]->id, 3);
  EXPECT_EQ(ancestors[3]->id, 1);
  EXPECT_EQ(best_ancestors(history, {5}, 2).size(), 2u);

  const std::string prompt = mutate_prompt({task, device, history, dropped}, history[4], "memory bound");
  const auto fastest = prompt.find("#5 llm-mutate \"grid stride\": 0.2500 ms, 4.00x");
  const auto second = prompt.find("#2 llm-mutate \"float4 loads\": 0.5000 ms, 2.00x");
  ASSERT_NE(fastest, std::string::npos) << prompt;
  ASSERT_NE(second, std::string::npos) << prompt;
  EXPECT_LT(fastest, second);
}

TEST_F(LlmPrompts, FailuresAndDroppedProposalsAreListedSoTheyAreNotRepeated) {
  history[3].status_message = "compile error: expected ';'\nmore lines that are not shown";
  const auto lines = failure_lines(history, dropped, 8);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "#4 llm-generate \"shared tiles\": compile_error: compile error: expected ';'");
  EXPECT_EQ(lines[1], dropped[0]);
  const std::string prompt = generate_prompt({task, device, history, dropped}, history[4], "memory bound");
  EXPECT_NE(prompt.find("## Tried and failed (do not repeat these)"), std::string::npos);
  EXPECT_NE(prompt.find("expected ';'"), std::string::npos);
  EXPECT_EQ(prompt.find("more lines that are not shown"), std::string::npos);
  EXPECT_NE(prompt.find("the reply changed the signature"), std::string::npos);
}

TEST_F(LlmPrompts, EveryPromptCarriesTaskDeviceDiagnosisAndSource) {
  const std::string prompt = mutate_prompt({task, device, history, dropped}, history[1], "DIAGNOSIS-TEXT");
  for (const char* expected : {"# Mutate", "## Task tunable_vadd", "test fixture", "Test GPU", "123.4 GB/s",
                               "test-arch", "DIAGNOSIS-TEXT", "```opencl\n__kernel void vector_add", "n=10007"})
    EXPECT_NE(prompt.find(expected), std::string::npos) << expected;
}

TEST_F(LlmPrompts, SystemPromptStatesTheRulesTunablesAndAnswerFormat) {
  const std::string prompt = system_prompt(task, "vector_add(float* a, float* b, float* c, int n)");
  for (const char* expected : {"vector_add(float* a, float* b, float* c, int n)", "BLOCK in {32, 64, 128, 256, 512, 1024} (default 256)",
                               "STRIDED in {0, 1} (default 1)", "#ifndef NAME", "ceil_div(n, BLOCK*ITEMS)",
                               "STRATEGY:", "RATIONALE:", "<<<<<<< SEARCH", ">>>>>>> REPLACE", "```opencl"})
    EXPECT_NE(prompt.find(expected), std::string::npos) << expected;
}

TEST_F(LlmPrompts, RepairPromptCarriesTheErrorAndTheChangeThatCausedIt) {
  Individual failed = history[3];
  failed.status_message = "compile error: expected ';' after expression";
  failed.compile_log = "<source>:11:36: error: expected ';' after expression";
  failed.variant.source = history[1].variant.source + "int broken = 1\n";
  const std::string prompt = reflect_prompt({task, device, history, dropped}, failed, &history[1]);
  EXPECT_NE(prompt.find("# Repair a failed kernel"), std::string::npos);
  EXPECT_NE(prompt.find("expected ';' after expression"), std::string::npos);
  EXPECT_NE(prompt.find("<source>:11:36"), std::string::npos);
  EXPECT_NE(prompt.find("```diff\n@@"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("+int broken = 1"), std::string::npos);
}

TEST_F(LlmPrompts, EditRetryPromptNamesEachFailedBlock) {
  const std::vector<llm::EditBlock> edits{{"a\n", "b\n"}, {"missing line\n", "x\n"}};
  const std::string prompt = edit_retry_prompt({{1, "SEARCH text not found"}}, edits);
  EXPECT_NE(prompt.find("# Edits did not apply"), std::string::npos);
  EXPECT_NE(prompt.find("block 2: SEARCH text not found"), std::string::npos);
  EXPECT_NE(prompt.find("missing line"), std::string::npos);
}

// A Triton task with a launcher: the prompt makes the launcher the contract, and a reply may
// rewrite the kernels behind it but not drop the launcher.
TEST(LlmTritonLauncher, TheLauncherIsTheContractTheKernelsAreFree) {
  const Task task = load_task(std::filesystem::path(KFORGE_SOURCE_DIR) / "examples/triton/matmul/kforge.toml");
  const std::string rules = system_prompt(task, "matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K)");
  EXPECT_NE(rules.find("calls your launcher `matmul`"), std::string::npos) << rules;
  EXPECT_NE(rules.find("num_stages in {1, 2, 3, 4, 5} (default 2)"), std::string::npos) << rules;
  EXPECT_EQ(rules.find("kforge launches kernel[grid]"), std::string::npos) << rules;

  std::string source = read_file(task.kernel.source);
  std::string renamed_kernel = source;
  for (auto at = renamed_kernel.find("matmul_kernel"); at != std::string::npos; at = renamed_kernel.find("matmul_kernel"))
    renamed_kernel.replace(at, 13, "mm_tiles");
  EXPECT_EQ(entry_kernel_problem(renamed_kernel, task, 6), "");
  std::string no_launcher = source;
  no_launcher.replace(no_launcher.find("def matmul("), 11, "def mm(");
  EXPECT_EQ(entry_kernel_problem(no_launcher, task, 6), "the reply does not define the launcher `matmul`");
}

TEST(LlmLineChange, ShowsOnlyTheChangedRegionWithContext) {
  EXPECT_EQ(changed_region("a\nb\nc\n", "a\nb\nc\n"), "");
  EXPECT_EQ(changed_region("1\n2\n3\n4\n5\n", "1\n2\nX\n4\n5\n", 1), "@@ -2,3 +2,3 @@\n 2\n-3\n+X\n 4\n");
  EXPECT_EQ(changed_region("a\n", "a\nb\n", 0), "@@ -2,0 +2,1 @@\n+b\n");
}

TEST(LlmIdeas, KeepsTheTopShareAndNamesIdeas) {
  EXPECT_EQ(ideas_to_keep(4, 50), 2u);
  EXPECT_EQ(ideas_to_keep(5, 50), 3u);
  EXPECT_EQ(ideas_to_keep(3, 1), 1u);
  EXPECT_EQ(ideas_to_keep(3, 100), 3u);
  EXPECT_EQ(ideas_to_keep(0, 50), 0u);
  EXPECT_EQ(idea_name("**float4 loads**: read four floats at once"), "float4 loads");
  EXPECT_EQ(idea_name("grid-stride loop"), "grid-stride loop");
}

TEST(LlmPromptHelpers, OneLineTakesTheFirstNonBlankLine) {
  EXPECT_EQ(one_line("\n  first line  \nsecond"), "first line");
  EXPECT_EQ(one_line(std::string(200, 'x'), 10), "xxxxxxx...");
}

}  // namespace
}  // namespace kforge
