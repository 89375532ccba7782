// The LLM operators against a real HTTP server with scripted replies: a reply becomes a
// proposal (whole file, edit blocks, edits repaired in a follow-up turn) or is dropped with
// a recorded reason (garbled, edits that never apply, a changed entry kernel); idea rounds,
// repairs, the budget, and what ends up in run.db (every exchange, never the key).
#include <gtest/gtest.h>

#include <random>

#include "search/llm_operators/llm_operators.h"
#include "search/llm_operators/llm_setup.h"
#include "task/task.h"
#include "test_llm_support.h"
#include "util/files.h"

namespace kforge {
namespace {
using namespace llm_test;
using llm::testing::openai_reply;

ScriptedReply ok(const std::string& text) { return {200, openai_reply(text, 100, 50), {}, {}}; }

const std::string kAnalysis = "Memory bound: one float per work-item. Use float4 loads.";
const std::string kBaselineLine = "    if (idx < n) c[idx] = a[idx] + b[idx];\n";

std::string garbled_text() {
  std::string text;
  for (int i = 0; i < 20; ++i) text += "the same line again and again\n";
  return text;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class LlmProposals : public ::testing::Test {
 protected:
  void SetUp() override {
    CandidateRecord record;
    record.operator_name = "baseline";
    record.strategy = "original kernel";
    record.source = read_file(task.kernel.source);
    record.params = task.default_params();
    const std::int64_t id = store.insert_candidate(record);
    CandidateResult result;
    result.status = CandidateStatus::Correct;
    result.metrics = metrics_from_json({{"median_ms", 1.0}, {"gbps", 20.0}, {"speedup", 1.0}});
    store.update_candidate_result(id, result);
    Individual baseline;
    baseline.id = id;
    baseline.status = CandidateStatus::Correct;
    baseline.median_ms = 1.0;
    baseline.speedup = 1.0;
    baseline.operator_name = "baseline";
    baseline.variant = {record.source, record.params, {}, ""};
    history.push_back(baseline);
  }

  LlmSetup setup(const FakeLlmServer& server, std::int64_t budget_tokens = 0) {
    const auto env = llm::environment_from({{"OPENAI_API_KEY", kSecret},
                                            {"OPENAI_BASE_URL", server.url() + "/v1"},
                                            {"KFORGE_LLM_MAX_ATTEMPTS", "1"}});
    return setup_llm_operators({"openai:test-model", 0, budget_tokens, {}}, task, store,
                               {"Test GPU", {{"name", "Test GPU"}}, 100.0}, true, env);
  }

  OperatorContext context() {
    return {task, rng, history, [](const KernelVariant&) { return false; }, ""};
  }

  static Operator& op(LlmSetup& setup, const std::string& name) {
    for (auto& op : setup.operators)
      if (op->name() == name) return *op;
    throw std::runtime_error("no operator " + name);
  }

  // Stores the proposal as the search would and tells the operator its id.
  std::int64_t store_proposal(Proposal& proposal) {
    CandidateRecord record;
    record.operator_name = proposal.operator_name;
    record.parent_ids = proposal.parent_ids;
    record.source = proposal.variant.source;
    record.strategy = proposal.strategy;
    record.rationale = proposal.rationale;
    const std::int64_t id = store.insert_candidate(record);
    proposal.on_stored(id);
    return id;
  }

  bool event_contains(const std::string& part) const {
    for (const auto& event : store.list_events())
      if (contains(event.message, part)) return true;
    return false;
  }

  Task task = load_task(fixture_dir() / "kforge.toml");
  std::filesystem::path run_dir = make_temp_dir("kforge-llm-ops") / "run";
  RunStore store = RunStore::create(run_dir);
  std::vector<Individual> history;
  std::mt19937_64 rng{1};
};

// Replies by request kind; `code` answers every request for a kernel.
FakeLlmServer::Script by_kind(std::function<std::string(int)> code) {
  auto count = std::make_shared<std::atomic<int>>(0);
  return [code, count](const ReceivedRequest& request, int) {
    const std::string user = last_user_text(request);
    if (starts_with(user, "# Diagnose")) return ok(kAnalysis);
    return ok(code((*count)++));
  };
}

TEST_F(LlmProposals, WholeFileReplyBecomesAProposalAndEveryExchangeIsStoredWithoutTheKey) {
  FakeLlmServer server(by_kind([](int) { return whole_file_reply("float4 loads", "wider loads move more per request", kFastKernel); }));
  {
    LlmSetup llm = setup(server);
    ASSERT_TRUE(llm.session) << llm.message;
    OperatorContext ctx = context();
    auto proposals = op(llm, "llm-mutate").propose(ctx, {&history[0]}, 1);
    ASSERT_EQ(proposals.size(), 1u);
    Proposal& proposal = proposals[0];
    EXPECT_EQ(proposal.operator_name, "llm-mutate");
    EXPECT_EQ(proposal.strategy, "float4 loads");
    EXPECT_EQ(proposal.rationale, "wider loads move more per request");
    EXPECT_EQ(proposal.variant.source, kFastKernel);
    EXPECT_EQ(proposal.variant.params, history[0].variant.params);
    EXPECT_EQ(proposal.parent_ids, std::vector<std::int64_t>{history[0].id});

    const std::string analysis = store.get_candidate(history[0].id)->analysis;
    EXPECT_TRUE(contains(analysis, kAnalysis)) << analysis;
    EXPECT_TRUE(contains(analysis, "20.0 GB/s = 20% of the measured copy bandwidth")) << analysis;
    // The mutate prompt carries the diagnosis.
    EXPECT_TRUE(contains(last_user_text(server.requests().back()), kAnalysis));

    const std::int64_t child = store_proposal(proposal);
    const auto linked = store.list_llm_exchanges(child);
    ASSERT_EQ(linked.size(), 1u);
    EXPECT_EQ(linked[0].purpose, "mutate");
    EXPECT_EQ(linked[0].status, "ok");
    EXPECT_TRUE(contains(linked[0].stored_response(), "STRATEGY: float4 loads"));
    EXPECT_TRUE(contains(linked[0].request_json, "# Mutate"));
    const auto analyzed = store.list_llm_exchanges(history[0].id);
    ASSERT_EQ(analyzed.size(), 1u);
    EXPECT_EQ(analyzed[0].purpose, "analyze");
  }
  EXPECT_EQ(store.llm_totals().exchanges, 2);
  EXPECT_EQ(server.requests().front().header("Authorization"), std::string("Bearer ") + kSecret);
  EXPECT_FALSE(any_file_contains(run_dir, kSecret));
  EXPECT_TRUE(std::filesystem::exists(run_dir / "exchanges.jsonl"));
}

TEST_F(LlmProposals, EditBlocksApplyToTheParent) {
  FakeLlmServer server(by_kind([](int) {
    return edit_reply("swap operands", kBaselineLine, "    if (idx < n) c[idx] = b[idx] + a[idx];\n");
  }));
  LlmSetup llm = setup(server);
  OperatorContext ctx = context();
  auto proposals = op(llm, "llm-mutate").propose(ctx, {&history[0]}, 1);
  ASSERT_EQ(proposals.size(), 1u);
  EXPECT_TRUE(contains(proposals[0].variant.source, "c[idx] = b[idx] + a[idx];"));
  EXPECT_FALSE(contains(proposals[0].variant.source, "c[idx] = a[idx] + b[idx];"));
  EXPECT_EQ(proposals[0].strategy, "swap operands");
}

TEST_F(LlmProposals, EditsThatDoNotApplyGoBackToTheModelInAFollowUpTurn) {
  FakeLlmServer server([](const ReceivedRequest& request, int) {
    const std::string user = last_user_text(request);
    if (starts_with(user, "# Diagnose")) return ok(kAnalysis);
    if (starts_with(user, "# Edits did not apply")) return ok(whole_file_reply("float4 loads", "fixed", kFastKernel));
    return ok(stale_edit_reply());
  });
  LlmSetup llm = setup(server);
  OperatorContext ctx = context();
  auto proposals = op(llm, "llm-mutate").propose(ctx, {&history[0]}, 1);
  ASSERT_EQ(proposals.size(), 1u);
  EXPECT_EQ(proposals[0].variant.source, kFastKernel);

  const ReceivedRequest follow_up = server.requests().back();
  const auto messages = follow_up.json().at("messages");
  ASSERT_EQ(messages.size(), 4u);  // system, the request, the failed reply, the failures
  EXPECT_EQ(messages[2].at("role"), "assistant");
  EXPECT_TRUE(contains(messages[2].at("content").get<std::string>(), "this line is not in the kernel"));
  EXPECT_TRUE(contains(last_user_text(follow_up), "block 1:"));

  const std::int64_t child = store_proposal(proposals[0]);
  const auto linked = store.list_llm_exchanges(child);
  ASSERT_EQ(linked.size(), 2u);
  EXPECT_EQ(linked[0].purpose, "mutate");
  EXPECT_EQ(linked[1].purpose, "mutate-retry");
}

TEST_F(LlmProposals, EditsThatStillDoNotApplyAreDroppedAndRecordedNeverSilently) {
  FakeLlmServer server(by_kind([](int) { return stale_edit_reply(); }));
  LlmSetup llm = setup(server);
  OperatorContext ctx = context();
  EXPECT_TRUE(op(llm, "llm-mutate").propose(ctx, {&history[0]}, 1).empty());
  EXPECT_TRUE(event_contains("did not apply"));
  EXPECT_TRUE(event_contains("after a follow-up turn"));
  EXPECT_EQ(llm.session->failed_proposals(), 1);
  const auto exchanges = store.list_llm_exchanges(history[0].id);
  int failed_edits = 0;
  for (const auto& exchange : exchanges) failed_edits += exchange.status == "edits-failed";
  EXPECT_EQ(failed_edits, 2);
  // The next prompt tells the model what did not work.
  op(llm, "llm-mutate").propose(ctx, {&history[0]}, 1);
  EXPECT_TRUE(contains(last_user_text(server.requests().back()), "did not apply")) << last_user_text(server.requests().back());
}

TEST_F(LlmProposals, GarbledReplyIsRecordedAsSuchAndTheRunGoesOn) {
  FakeLlmServer server(by_kind([](int call) {
    return call == 0 ? garbled_text() : whole_file_reply("float4 loads", "ok", kFastKernel);
  }));
  LlmSetup llm = setup(server);
  OperatorContext ctx = context();
  EXPECT_TRUE(op(llm, "llm-mutate").propose(ctx, {&history[0]}, 1).empty());
  EXPECT_TRUE(event_contains("garbled reply"));
  bool stored_as_garbled = false;
  for (const auto& exchange : store.list_llm_exchanges()) stored_as_garbled |= exchange.status == "garbled";
  EXPECT_TRUE(stored_as_garbled);
  EXPECT_EQ(op(llm, "llm-mutate").propose(ctx, {&history[0]}, 1).size(), 1u);
}

TEST_F(LlmProposals, AReplyWithoutTheEntryKernelOrWithItsSignatureChangedIsRejected) {
  std::string renamed = kFastKernel;
  renamed.replace(renamed.find("void vector_add("), 16, "void vector_sum(");
  std::string fewer_params = kFastKernel;
  fewer_params.replace(fewer_params.find("__global const float* restrict b,"), 33, "");
  FakeLlmServer server(by_kind([=](int call) {
    return whole_file_reply("renamed", "x", call == 0 ? renamed : fewer_params);
  }));
  LlmSetup llm = setup(server);
  OperatorContext ctx = context();
  EXPECT_TRUE(op(llm, "llm-mutate").propose(ctx, {&history[0]}, 1).empty());
  EXPECT_TRUE(event_contains("does not define the entry kernel `vector_add`"));
  EXPECT_TRUE(op(llm, "llm-mutate").propose(ctx, {&history[0]}, 1).empty());
  EXPECT_TRUE(event_contains("3 parameters instead of 4"));
  EXPECT_EQ(llm.session->failed_proposals(), 2);
  int rejected = 0;
  for (const auto& exchange : store.list_llm_exchanges()) rejected += exchange.status == "rejected";
  EXPECT_EQ(rejected, 2);
}

TEST_F(LlmProposals, IdeaRoundsImplementTheTopShareOfRankedIdeas) {
  auto ideas_asked = std::make_shared<std::atomic<int>>(0);
  FakeLlmServer server([ideas_asked](const ReceivedRequest& request, int index) {
    const std::string user = last_user_text(request);
    if (starts_with(user, "# Diagnose")) return ok(kAnalysis);
    if (starts_with(user, "# Ideas")) {
      ++*ideas_asked;
      return ok("1. float4 loads: read four floats at once\n2. grid stride: fewer work-groups\n"
                "3. prefetch: hide latency\n4. unroll: fewer branches\n");
    }
    return ok(whole_file_reply("whatever the model says", "impl", kFastKernel + "// " + std::to_string(index) + "\n"));
  });
  LlmSetup llm = setup(server);
  OperatorContext ctx = context();
  Operator& idea = op(llm, "llm-idea");
  const auto first = idea.propose(ctx, {&history[0]}, 1);
  const auto second = idea.propose(ctx, {&history[0]}, 1);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(first[0].strategy, "float4 loads");
  EXPECT_EQ(second[0].strategy, "grid stride");
  EXPECT_EQ(*ideas_asked, 1);  // 4 ideas, the top 50% kept: two implementations per round
  EXPECT_TRUE(contains(last_user_text(server.requests().back()), "grid stride: fewer work-groups"));
  idea.propose(ctx, {&history[0]}, 1);
  EXPECT_EQ(*ideas_asked, 2);
}

TEST_F(LlmProposals, ReflectRepairsTheNewestFailedLlmCandidateWithItsErrorAndDiff) {
  Individual failed;
  failed.id = 2;
  failed.status = CandidateStatus::CompileError;
  failed.status_message = "compile error: expected ';' after expression";
  failed.compile_log = "11:36: error: expected ';' after expression";
  failed.operator_name = "llm-mutate";
  failed.strategy = "fewer index ops";
  failed.parent_ids = {history[0].id};
  failed.variant = {kBrokenKernel, history[0].variant.params, {}, ""};
  history.push_back(failed);
  FakeLlmServer server(by_kind([](int) { return whole_file_reply("fixed semicolon", "repair", kRepairedKernel); }));
  LlmSetup llm = setup(server);
  OperatorContext ctx = context();
  // Any LLM operator repairs first; llm-generate is drawn here.
  auto proposals = op(llm, "llm-generate").propose(ctx, {}, 1);
  ASSERT_EQ(proposals.size(), 1u);
  EXPECT_EQ(proposals[0].operator_name, "llm-reflect");
  EXPECT_EQ(proposals[0].parent_ids, std::vector<std::int64_t>{2});
  EXPECT_EQ(proposals[0].variant.source, kRepairedKernel);
  const std::string prompt = last_user_text(server.requests().back());
  EXPECT_TRUE(starts_with(prompt, "# Repair a failed kernel")) << prompt;
  EXPECT_TRUE(contains(prompt, "11:36: error: expected ';'"));
  EXPECT_TRUE(contains(prompt, "```diff\n@@"));
  // Claimed once: llm-reflect has nothing left to repair.
  EXPECT_TRUE(op(llm, "llm-reflect").propose(ctx, {}, 1).empty());
}

TEST_F(LlmProposals, RepairsStopAfterTheConfiguredNumberOfRounds) {
  for (std::int64_t id = 2; id <= 4; ++id) {
    Individual failed;
    failed.id = id;
    failed.status = CandidateStatus::Incorrect;
    failed.status_message = "wrong result";
    failed.operator_name = id == 2 ? "llm-mutate" : "llm-reflect";
    failed.parent_ids = {id - 1};
    failed.variant = {kBrokenKernel + std::to_string(id), {}, {}, ""};
    history.push_back(failed);
  }
  FakeLlmServer server(by_kind([](int) { return whole_file_reply("fix", "repair", kRepairedKernel); }));
  LlmSetup llm = setup(server);
  OperatorContext ctx = context();
  // #2 was repaired by #3, #3 by #4, and #4 is two repairs deep: nothing is due.
  EXPECT_TRUE(op(llm, "llm-reflect").propose(ctx, {}, 1).empty());
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(LlmProposals, TheTokenBudgetStopsTheOperatorsCleanly) {
  FakeLlmServer server(by_kind([](int) { return whole_file_reply("float4 loads", "ok", kFastKernel); }));
  LlmSetup llm = setup(server, 200);  // each reply costs 150 tokens
  OperatorContext ctx = context();
  EXPECT_EQ(op(llm, "llm-mutate").propose(ctx, {&history[0]}, 1).size(), 1u);  // analyze + mutate
  EXPECT_FALSE(op(llm, "llm-mutate").exhausted());
  EXPECT_TRUE(op(llm, "llm-generate").propose(ctx, {}, 1).empty());
  EXPECT_TRUE(op(llm, "llm-generate").exhausted());
  EXPECT_TRUE(op(llm, "llm-idea").exhausted());
  EXPECT_TRUE(event_contains("LLM budget exhausted: continuing with built-in operators"));
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST_F(LlmProposals, FailedCallsAreStoredWithTheirError) {
  FakeLlmServer server(std::vector<ScriptedReply>{{500, R"({"error":{"message":"boom"}})", {}, {}}});
  LlmSetup llm = setup(server);
  OperatorContext ctx = context();
  EXPECT_TRUE(op(llm, "llm-mutate").propose(ctx, {&history[0]}, 1).empty());
  const auto exchanges = store.list_llm_exchanges();
  ASSERT_EQ(exchanges.size(), 2u);  // the analysis and the mutation both failed
  EXPECT_EQ(exchanges[1].status, "error");
  EXPECT_TRUE(contains(exchanges[1].error, "HTTP 500"));
  EXPECT_TRUE(event_contains("the LLM call failed"));
  // The analysis falls back to the measurements alone.
  EXPECT_TRUE(contains(store.get_candidate(history[0].id)->analysis, "measured:"));
}

TEST_F(LlmProposals, NoKeyMeansNoLlmOperatorsAndOneLineWhy) {
  const auto env = llm::environment_from({});
  LlmSetup llm = setup_llm_operators({"openai:test-model", 0, 0, {}}, task, store, {}, true, env);
  EXPECT_FALSE(llm.session);
  EXPECT_TRUE(llm.operators.empty());
  EXPECT_TRUE(contains(llm.message, "needs an API key")) << llm.message;
  EXPECT_EQ(llm.message.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace kforge
