// Recording a run to exchanges.jsonl and replaying it, matched by purpose and order.
#include <gtest/gtest.h>

#include <fstream>

#include "fake_llm_server.h"
#include "llm/http_provider.h"
#include "llm/jsonl_exchange_sink.h"
#include "llm/provider_factory.h"
#include "llm/replay_provider.h"
#include "support/temp_dir.h"

namespace kforge::llm {
namespace {

using testing::FakeLlmServer;
using testing::openai_reply;
using testing::ScriptedReply;

LlmRequest request_for(const std::string& purpose, const std::string& candidate) {
  return LlmRequest{"system", {{"user", purpose + " please"}}, 100, 0.2, purpose, candidate};
}

TEST(Replay, RoundTripMatchesByPurposeAndOrder) {
  kforge::testing::TempDir run;
  {
    // Each reply names the request it answers, so the replay order can be checked.
    FakeLlmServer server([](const testing::ReceivedRequest& request, int index) {
      const auto body = request.json();
      const std::string asked = body["messages"].back()["content"];
      return ScriptedReply{200, openai_reply(asked + " #" + std::to_string(index), 10 + index, 5), {}, {}};
    });
    ProviderConfig config;
    config.model = "gpt-4o";
    config.base_url = server.url();
    auto sink = std::make_shared<JsonlExchangeSink>(run.path() / "exchanges.jsonl");
    auto provider = make_openai_provider(config, sink);
    ASSERT_TRUE(provider->complete(request_for("mutate", "c1")).ok());
    ASSERT_TRUE(provider->complete(request_for("ideas", "")).ok());
    ASSERT_TRUE(provider->complete(request_for("mutate", "c2")).ok());
  }

  const auto recorded = read_exchanges_jsonl(run.path() / "exchanges.jsonl");
  ASSERT_EQ(recorded.size(), 3u);
  EXPECT_EQ(recorded[1].purpose, "ideas");
  EXPECT_EQ(recorded[2].candidate_id, "c2");

  auto new_record = std::make_shared<MemoryExchangeSink>();
  auto selection = select_provider("replay:" + run.path().string(), environment_from({}), new_record);
  ASSERT_TRUE(selection) << selection.reason;
  LlmProvider& replay = *selection.provider;
  EXPECT_EQ(replay.name(), "replay");
  EXPECT_EQ(replay.model(), "gpt-4o");

  // Asked in a different interleaving: each purpose still gets its own replies in order.
  const auto ideas = replay.complete(request_for("ideas", ""));
  const auto first = replay.complete(request_for("mutate", "x1"));
  const auto second = replay.complete(request_for("mutate", "x2"));
  EXPECT_EQ(ideas.text, "ideas please #1");
  EXPECT_EQ(first.text, "mutate please #0");
  EXPECT_EQ(second.text, "mutate please #2");
  EXPECT_EQ(first.input_tokens, 10);
  EXPECT_EQ(replay.usage().input_tokens, 10 + 11 + 12);

  const auto beyond = replay.complete(request_for("mutate", "x3"));
  EXPECT_FALSE(beyond.ok());
  EXPECT_NE(beyond.error.find("no recorded exchange left for purpose 'mutate'"), std::string::npos);

  const auto rerecorded = new_record->exchanges();
  ASSERT_EQ(rerecorded.size(), 3u);
  EXPECT_EQ(rerecorded[0].provider, "replay");
  EXPECT_EQ(rerecorded[1].candidate_id, "x1");
}

TEST(Replay, RecordedFailuresReplayAsFailures) {
  LlmExchange failed;
  failed.purpose = "mutate";
  failed.error = "openai returned HTTP 500: boom";
  failed.http_status = 500;
  ReplayProvider replay({failed});
  const auto response = replay.complete(request_for("mutate", ""));
  EXPECT_FALSE(response.ok());
  EXPECT_EQ(response.error, failed.error);
  EXPECT_EQ(replay.remaining(), 0u);
}

TEST(Replay, SkipsACorruptLastLine) {
  kforge::testing::TempDir run;
  {
    JsonlExchangeSink sink(run.path() / "exchanges.jsonl");
    LlmExchange exchange;
    exchange.purpose = "mutate";
    exchange.text = "line one\nline two \xff";  // invalid UTF-8 must not break writing
    sink.record(exchange);
  }
  {
    std::ofstream append(run.path() / "exchanges.jsonl", std::ios::app);
    append << R"({"purpose":"mutate","text":"cut of)";
  }
  const auto exchanges = read_exchanges_jsonl(run.path() / "exchanges.jsonl");
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_EQ(exchanges[0].text.substr(0, 17), "line one\nline two");
}

TEST(Replay, MissingRunIsAReason) {
  const auto selection = select_provider("replay:/nonexistent/run", environment_from({}));
  EXPECT_FALSE(selection);
  EXPECT_NE(selection.reason.find("does not exist"), std::string::npos) << selection.reason;
}

}  // namespace
}  // namespace kforge::llm
