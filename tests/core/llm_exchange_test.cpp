// The one LLM exchange record: its JSON mapping round trips, older lines still load, and the
// run store's derived views (outcome, stored response, stored candidate id) say what they should.
#include <gtest/gtest.h>

#include "core/llm_exchange.h"

namespace kforge {
namespace {

TEST(LlmExchange, JsonRoundTripKeepsEveryField) {
  LlmExchange exchange;
  exchange.provider = "openai";
  exchange.model = "gpt";
  exchange.purpose = "mutate";
  exchange.candidate_id = "pending:2";
  exchange.request_json = R"({"messages":[]})";
  exchange.response_body = "{...}";
  exchange.text = "STRATEGY: tiling";
  exchange.finish_reason = "stop";
  exchange.http_status = 200;
  exchange.status = "garbled";
  exchange.input_tokens = 10;
  exchange.output_tokens = 5;
  exchange.cost_usd = 0.01;
  exchange.latency_ms = 1234;
  exchange.attempts = 2;
  exchange.timestamp = "2025-01-31T12:34:56.789Z";
  const nlohmann::json written = to_json(exchange);
  EXPECT_EQ(to_json(exchange_from_json(written)), written);
  EXPECT_FALSE(written.contains("id"));  // not stored yet
}

TEST(LlmExchange, AnOlderLineLoadsWithDefaults) {
  const LlmExchange exchange =
      exchange_from_json(nlohmann::json::parse(R"({"provider":"anthropic","purpose":"ideas","attempts":"x"})"));
  EXPECT_EQ(exchange.provider, "anthropic");
  EXPECT_EQ(exchange.attempts, 0);  // mistyped: the default
  EXPECT_TRUE(exchange.status.empty());
  EXPECT_EQ(exchange.outcome(), "ok");
  EXPECT_EQ(exchange_from_json(nullptr).provider, "");
}

TEST(LlmExchange, StoredViews) {
  LlmExchange exchange;
  exchange.text = "reply";
  exchange.response_body = "raw";
  EXPECT_EQ(exchange.outcome(), "ok");
  EXPECT_EQ(exchange.stored_response(), "reply");
  exchange.error = "HTTP 500";
  EXPECT_EQ(exchange.outcome(), "error");
  EXPECT_EQ(exchange.stored_response(), "raw");
  exchange.status = "rejected";
  EXPECT_EQ(exchange.outcome(), "rejected");
  for (const char* not_stored : {"", "pending:3", "c7", "0", "-4", "12x"}) {
    exchange.candidate_id = not_stored;
    EXPECT_FALSE(exchange.stored_candidate_id().has_value()) << not_stored;
  }
  exchange.candidate_id = "17";
  EXPECT_EQ(exchange.stored_candidate_id(), 17);
}

}  // namespace
}  // namespace kforge
