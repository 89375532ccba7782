// The API key travels in request headers and nowhere else: not in recorded exchanges, not in
// error messages, not in the JSON-lines file - even when the server echoes it back.
#include <gtest/gtest.h>

#include "fake_llm_server.h"
#include "llm/http_provider.h"
#include "llm/jsonl_exchange_sink.h"
#include "llm/provider_factory.h"
#include "support/temp_dir.h"
#include "util/files.h"

namespace kforge::llm {
namespace {

using testing::FakeLlmServer;
using testing::openai_reply;
using testing::ScriptedReply;

constexpr const char* kSecret = "sk-live-SECRET-0123456789abcdef";

bool contains_secret(const std::string& text) { return text.find(kSecret) != std::string::npos; }

void expect_no_secret(const LlmExchange& exchange) {
  EXPECT_FALSE(contains_secret(to_json(exchange).dump()));
}

ProviderConfig config_for(const std::string& url, const std::string& model) {
  ProviderConfig config;
  config.model = model;
  config.base_url = url;
  config.api_key = kSecret;
  config.options.retry.max_attempts = 2;
  config.options.retry.base_delay = std::chrono::milliseconds(5);
  config.options.request_timeout = std::chrono::milliseconds(1000);
  return config;
}

TEST(SecretKey, NeverRecordedNorInErrors) {
  // The server echoes the key it received back in its error (as some proxies do).
  FakeLlmServer server([](const testing::ReceivedRequest& request, int index) {
    if (index == 0) return ScriptedReply{200, openai_reply("fine", 10, 10), {}, {}};
    const std::string key = request.header("Authorization") + request.header("x-api-key");
    return ScriptedReply{401, R"({"error":{"message":"Incorrect API key provided: )" + key + R"("}})",
                         {}, {}};
  });
  kforge::testing::TempDir dir;
  auto memory = std::make_shared<MemoryExchangeSink>();
  auto jsonl = std::make_shared<JsonlExchangeSink>(dir.path() / "exchanges.jsonl");

  auto ok_provider = make_openai_provider(config_for(server.url(), "gpt-4o"), memory);
  const auto ok = ok_provider->complete({"sys", {{"user", "hi"}}, 100, 0.1, "mutate", "c1"});
  ASSERT_TRUE(ok.ok()) << ok.error;
  // This one fails and is recorded through the JSON-lines sink.
  auto bad_provider = make_openai_provider(config_for(server.url(), "gpt-4o"), jsonl);
  const auto bad = bad_provider->complete({"sys", {{"user", "hi"}}, 100, 0.1, "mutate", "c2"});
  ASSERT_FALSE(bad.ok());

  // The key did reach the server, so the test would notice it leaking.
  EXPECT_TRUE(contains_secret(server.requests().at(1).header("Authorization")));
  EXPECT_NE(bad.error.find("[REDACTED]"), std::string::npos) << bad.error;
  EXPECT_FALSE(contains_secret(bad.error));
  EXPECT_FALSE(contains_secret(bad.raw_body));
  for (const auto& exchange : memory->exchanges()) expect_no_secret(exchange);
  EXPECT_FALSE(contains_secret(read_file(dir.path() / "exchanges.jsonl")));

  // The Anthropic format sends the key in x-api-key; the echo must be redacted there too.
  auto anthropic = make_anthropic_provider(config_for(server.url(), "claude-3-5-haiku"), memory);
  const auto rejected = anthropic->complete({"sys", {{"user", "hi"}}, 100, 0.1, "mutate", "c3"});
  EXPECT_FALSE(rejected.ok());
  EXPECT_FALSE(contains_secret(rejected.error));
  for (const auto& exchange : memory->exchanges()) expect_no_secret(exchange);
}

TEST(SecretKey, NotInTransportErrorsNorDescriptions) {
  int closed_port = 0;
  {
    FakeLlmServer server({ScriptedReply{}});
    closed_port = server.port();
  }
  auto memory = std::make_shared<MemoryExchangeSink>();
  const auto config = config_for("http://127.0.0.1:" + std::to_string(closed_port), "gpt-4o");
  EXPECT_FALSE(contains_secret(config.describe()));
  auto provider = make_openai_provider(config, memory);
  const auto response = provider->complete({"", {{"user", "hi"}}, 10, 0, "mutate", ""});
  EXPECT_FALSE(response.ok());
  EXPECT_FALSE(contains_secret(response.error));
  ASSERT_EQ(memory->exchanges().size(), 1u);
  expect_no_secret(memory->exchanges()[0]);
}

TEST(SecretKey, NotInFactoryReasons) {
  const auto env = environment_from({{"OPENAI_API_KEY", kSecret}, {"KFORGE_LLM_TIMEOUT_S", "abc"}});
  const auto selection = select_provider("openai:gpt-4o", env);
  EXPECT_FALSE(selection);
  EXPECT_FALSE(contains_secret(selection.reason));
}

}  // namespace
}  // namespace kforge::llm
