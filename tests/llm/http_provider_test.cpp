// The HTTP providers against a real in-process server speaking both wire formats.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "fake_llm_server.h"
#include "llm/http_provider.h"
#include "llm/jsonl_exchange_sink.h"

namespace kforge::llm {
namespace {

using testing::anthropic_reply;
using testing::FakeLlmServer;
using testing::openai_reply;
using testing::ScriptedReply;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Short timeouts and back-off so failure paths stay fast.
ProviderConfig test_config(const std::string& base_url, const std::string& model) {
  ProviderConfig config;
  config.model = model;
  config.base_url = base_url;
  config.api_key = "sk-test-key";
  config.options.connect_timeout = milliseconds(1000);
  config.options.request_timeout = milliseconds(2000);
  config.options.retry.max_attempts = 3;
  config.options.retry.base_delay = milliseconds(10);
  config.options.retry.max_delay = milliseconds(50);
  return config;
}

LlmRequest mutate_request() {
  LlmRequest request;
  request.system = "You optimize GPU kernels.";
  request.messages = {{"user", "Make this faster."}};
  request.max_tokens = 1234;
  request.temperature = 0.5;
  request.purpose = "mutate";
  request.candidate_id = "c7";
  return request;
}

double elapsed_ms(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

TEST(OpenAiProvider, SendsChatCompletionAndReadsReply) {
  FakeLlmServer server({ScriptedReply{200, openai_reply("STRATEGY: tiling", 1000, 500), {}, {}}});
  auto sink = std::make_shared<MemoryExchangeSink>();
  auto provider = make_openai_provider(test_config(server.url() + "/v1", "gpt-4o"), sink);

  const LlmResponse response = provider->complete(mutate_request());

  ASSERT_TRUE(response.ok()) << response.error;
  EXPECT_EQ(response.text, "STRATEGY: tiling");
  EXPECT_EQ(response.finish_reason, "stop");
  EXPECT_EQ(response.input_tokens, 1000);
  EXPECT_EQ(response.output_tokens, 500);
  EXPECT_NEAR(response.cost_usd, 1000 * 2.5e-6 + 500 * 10e-6, 1e-12);  // gpt-4o: $2.50/$10 per Mtok
  EXPECT_TRUE(response.cost_known);
  EXPECT_EQ(response.attempts, 1);
  EXPECT_EQ(response.http_status, 200);
  EXPECT_GT(response.latency_ms, 0);

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/chat/completions");
  EXPECT_EQ(requests[0].header("Authorization"), "Bearer sk-test-key");
  EXPECT_EQ(requests[0].header("Content-Type"), "application/json");
  const auto body = requests[0].json();
  EXPECT_EQ(body["model"], "gpt-4o");
  EXPECT_EQ(body["max_tokens"], 1234);
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.5);
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["messages"][0]["content"], "You optimize GPU kernels.");
  EXPECT_EQ(body["messages"][1]["role"], "user");
  EXPECT_EQ(body["messages"][1]["content"], "Make this faster.");

  const auto exchanges = sink->exchanges();
  ASSERT_EQ(exchanges.size(), 1u);
  EXPECT_EQ(exchanges[0].provider, "openai");
  EXPECT_EQ(exchanges[0].model, "gpt-4o");
  EXPECT_EQ(exchanges[0].purpose, "mutate");
  EXPECT_EQ(exchanges[0].candidate_id, "c7");
  EXPECT_EQ(exchanges[0].request_json, requests[0].body);
  EXPECT_EQ(exchanges[0].text, "STRATEGY: tiling");
  EXPECT_EQ(exchanges[0].http_status, 200);
  EXPECT_EQ(exchanges[0].input_tokens, 1000);
  EXPECT_FALSE(exchanges[0].timestamp.empty());
}

TEST(OpenAiProvider, AccumulatesUsageAcrossCalls) {
  FakeLlmServer server({ScriptedReply{200, openai_reply("ok", 100, 20), {}, {}}});
  auto provider = make_openai_provider(test_config(server.url(), "gpt-4o-mini"));
  provider->complete(mutate_request());
  provider->complete(mutate_request());
  const UsageTotals usage = provider->usage();
  EXPECT_EQ(usage.calls, 2);
  EXPECT_EQ(usage.failed_calls, 0);
  EXPECT_EQ(usage.input_tokens, 200);
  EXPECT_EQ(usage.output_tokens, 40);
  EXPECT_NEAR(usage.cost_usd, 2 * (100 * 0.15e-6 + 20 * 0.60e-6), 1e-12);
}

TEST(OpenAiProvider, UnknownModelCostsNothingAndSaysSo) {
  FakeLlmServer server({ScriptedReply{200, openai_reply("ok", 100, 20), {}, {}}});
  auto provider = make_openai_provider(test_config(server.url(), "my-local-llama"));
  const auto response = provider->complete(mutate_request());
  ASSERT_TRUE(response.ok()) << response.error;
  EXPECT_FALSE(response.cost_known);
  EXPECT_EQ(response.cost_usd, 0);
  EXPECT_EQ(response.input_tokens, 100);
}

// The client never prints: what it has to say besides replies goes to its sink as notices.
class NoticeRecordingSink : public MemoryExchangeSink {
 public:
  void notice(NoticeLevel level, const std::string& text) override {
    std::lock_guard lock(mutex_);
    notices_.emplace_back(level, text);
  }
  std::vector<std::pair<NoticeLevel, std::string>> notices() const {
    std::lock_guard lock(mutex_);
    return notices_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<NoticeLevel, std::string>> notices_;
};

TEST(Notices, AnUnknownPriceIsOneWarningAndARetryADetail) {
  FakeLlmServer server({ScriptedReply{500, R"({"error":{"message":"boom"}})", {}, {}},
                        ScriptedReply{200, openai_reply("ok", 1, 1), {}, {}}});
  auto sink = std::make_shared<NoticeRecordingSink>();
  auto provider = make_openai_provider(test_config(server.url(), "my-local-llama"), sink);
  ASSERT_TRUE(provider->complete(mutate_request()).ok());
  ASSERT_TRUE(provider->complete(mutate_request()).ok());
  const auto notices = sink->notices();
  ASSERT_EQ(notices.size(), 2u);
  EXPECT_EQ(notices[0].first, NoticeLevel::Detail);
  EXPECT_NE(notices[0].second.find("LLM attempt 1/"), std::string::npos) << notices[0].second;
  EXPECT_NE(notices[0].second.find("retrying in"), std::string::npos) << notices[0].second;
  EXPECT_EQ(notices[1].first, NoticeLevel::Warning);
  EXPECT_NE(notices[1].second.find("no price known for model 'my-local-llama'"), std::string::npos);
}

TEST(OpenAiProvider, ReasoningModelsGetMaxCompletionTokensAndNoTemperature) {
  FakeLlmServer server({ScriptedReply{200, openai_reply("ok", 1, 1), {}, {}}});
  auto provider = make_openai_provider(test_config(server.url(), "o4-mini"));
  ASSERT_TRUE(provider->complete(mutate_request()).ok());
  const auto body = server.requests().at(0).json();
  EXPECT_EQ(body["max_completion_tokens"], 1234);
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_FALSE(body.contains("temperature"));
}

TEST(AnthropicProvider, SendsMessagesRequestAndReadsReply) {
  FakeLlmServer server({ScriptedReply{200, anthropic_reply("hello", 2000, 100), {}, {}}});
  auto sink = std::make_shared<MemoryExchangeSink>();
  auto provider =
      make_anthropic_provider(test_config(server.url(), "claude-sonnet-4-20250514"), sink);

  const LlmResponse response = provider->complete(mutate_request());

  ASSERT_TRUE(response.ok()) << response.error;
  EXPECT_EQ(response.text, "hello");
  EXPECT_EQ(response.finish_reason, "end_turn");
  EXPECT_EQ(response.input_tokens, 2000);
  EXPECT_EQ(response.output_tokens, 100);
  EXPECT_NEAR(response.cost_usd, 2000 * 3e-6 + 100 * 15e-6, 1e-12);

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/messages");
  EXPECT_EQ(requests[0].header("x-api-key"), "sk-test-key");
  EXPECT_EQ(requests[0].header("anthropic-version"), "2023-06-01");
  EXPECT_EQ(requests[0].header("Authorization"), "");
  const auto body = requests[0].json();
  EXPECT_EQ(body["model"], "claude-sonnet-4-20250514");
  EXPECT_EQ(body["max_tokens"], 1234);
  EXPECT_EQ(body["system"], "You optimize GPU kernels.");  // top level, not a message
  ASSERT_EQ(body["messages"].size(), 1u);
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_EQ(body["messages"][0]["content"], "Make this faster.");
  EXPECT_EQ(sink->exchanges().at(0).provider, "anthropic");
}

TEST(AnthropicProvider, ConcatenatesTextBlocksAndSkipsOthers) {
  const std::string body = R"({"type":"message","content":[{"type":"thinking","thinking":"hmm"},
      {"type":"text","text":"part one, "},{"type":"text","text":"part two"}],
      "stop_reason":"max_tokens","usage":{"input_tokens":5,"output_tokens":7,
      "cache_read_input_tokens":10}})";
  FakeLlmServer server({ScriptedReply{200, body, {}, {}}});
  auto provider = make_anthropic_provider(test_config(server.url(), "claude-3-5-haiku"));
  const auto response = provider->complete(mutate_request());
  ASSERT_TRUE(response.ok()) << response.error;
  EXPECT_EQ(response.text, "part one, part two");
  EXPECT_EQ(response.finish_reason, "max_tokens");
  EXPECT_EQ(response.input_tokens, 15);
  EXPECT_EQ(response.output_tokens, 7);
}

TEST(Retries, HonoursRetryAfterOn429) {
  FakeLlmServer server({ScriptedReply{429, R"({"error":{"message":"slow down"}})",
                                      {{"Retry-After", "1"}}, {}},
                        ScriptedReply{200, openai_reply("ok", 1, 1), {}, {}}});
  auto provider = make_openai_provider(test_config(server.url(), "gpt-4o"));
  const auto start = Clock::now();
  const auto response = provider->complete(mutate_request());
  const double waited = elapsed_ms(start);
  ASSERT_TRUE(response.ok()) << response.error;
  EXPECT_EQ(response.attempts, 2);
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_GE(waited, 1000);  // the base back-off is 10 ms: only Retry-After explains this
  EXPECT_LT(waited, 3000);
}

TEST(Retries, RetriesServerErrorThenSucceeds) {
  FakeLlmServer server({ScriptedReply{500, R"({"error":{"message":"boom"}})", {}, {}},
                        ScriptedReply{200, anthropic_reply("ok", 1, 1), {}, {}}});
  auto provider = make_anthropic_provider(test_config(server.url(), "claude-3-5-haiku"));
  const auto response = provider->complete(mutate_request());
  ASSERT_TRUE(response.ok()) << response.error;
  EXPECT_EQ(response.attempts, 2);
  EXPECT_EQ(response.text, "ok");
}

TEST(Retries, GivesUpAfterMaxAttemptsWithTheLastError) {
  FakeLlmServer server({ScriptedReply{503, R"({"type":"error","error":{"type":"overloaded_error",
                                      "message":"Overloaded"}})", {}, {}}});
  auto provider = make_anthropic_provider(test_config(server.url(), "claude-3-5-haiku"));
  const auto response = provider->complete(mutate_request());
  EXPECT_FALSE(response.ok());
  EXPECT_EQ(response.attempts, 3);
  EXPECT_EQ(response.http_status, 503);
  EXPECT_NE(response.error.find("overloaded_error: Overloaded"), std::string::npos) << response.error;
  EXPECT_NE(response.error.find("after 3 attempts"), std::string::npos) << response.error;
  EXPECT_EQ(provider->usage().failed_calls, 1);
}

TEST(Retries, DoesNotRetryClientErrors) {
  FakeLlmServer server({ScriptedReply{400, R"({"error":{"message":"bad model"}})", {}, {}}});
  auto provider = make_openai_provider(test_config(server.url(), "gpt-4o"));
  const auto response = provider->complete(mutate_request());
  EXPECT_FALSE(response.ok());
  EXPECT_EQ(response.attempts, 1);
  EXPECT_EQ(response.http_status, 400);
  EXPECT_NE(response.error.find("HTTP 400: bad model"), std::string::npos) << response.error;
}

TEST(Retries, StalledConnectionTimesOut) {
  FakeLlmServer server({ScriptedReply{200, openai_reply("too late", 1, 1), {}, milliseconds(5000)}});
  ProviderConfig config = test_config(server.url(), "gpt-4o");
  config.options.request_timeout = milliseconds(300);
  config.options.retry.max_attempts = 2;
  auto sink = std::make_shared<MemoryExchangeSink>();
  auto provider = make_openai_provider(config, sink);
  const auto start = Clock::now();
  const auto response = provider->complete(mutate_request());
  const double waited = elapsed_ms(start);
  EXPECT_FALSE(response.ok());
  EXPECT_EQ(response.attempts, 2);
  EXPECT_NE(response.error.find("timed out"), std::string::npos) << response.error;
  EXPECT_GE(waited, 600);
  EXPECT_LT(waited, 2500);
  EXPECT_EQ(server.requests().size(), 2u);
  ASSERT_EQ(sink->exchanges().size(), 1u);  // one exchange per call, however many attempts
  EXPECT_EQ(sink->exchanges()[0].attempts, 2);
}

TEST(Retries, ConnectionRefusedIsAnErrorNotACrash) {
  int closed_port = 0;
  {
    FakeLlmServer server({ScriptedReply{}});
    closed_port = server.port();
  }
  auto provider =
      make_openai_provider(test_config("http://127.0.0.1:" + std::to_string(closed_port), "gpt-4o"));
  const auto response = provider->complete(mutate_request());
  EXPECT_FALSE(response.ok());
  EXPECT_EQ(response.attempts, 3);
  EXPECT_EQ(response.http_status, 0);
}

TEST(BadReplies, TruncatedJsonIsAnErrorResponse) {
  FakeLlmServer server(
      {ScriptedReply{200, R"({"choices":[{"message":{"role":"assistant","content":"__global__ vo)", {}, {}}});
  auto sink = std::make_shared<MemoryExchangeSink>();
  auto provider = make_openai_provider(test_config(server.url(), "gpt-4o"), sink);
  const auto response = provider->complete(mutate_request());
  EXPECT_FALSE(response.ok());
  EXPECT_NE(response.error.find("invalid JSON"), std::string::npos) << response.error;
  EXPECT_EQ(response.attempts, 1);
  EXPECT_TRUE(response.text.empty());
  ASSERT_EQ(sink->exchanges().size(), 1u);
  EXPECT_EQ(sink->exchanges()[0].error, response.error);
  EXPECT_NE(sink->exchanges()[0].response_body.find("__global__ vo"), std::string::npos);
}

TEST(BadReplies, EmptyContentIsAnErrorButTokensAreCounted) {
  FakeLlmServer server({ScriptedReply{200, openai_reply("", 300, 0, "length"), {}, {}}});
  auto provider = make_openai_provider(test_config(server.url(), "gpt-4o"));
  const auto response = provider->complete(mutate_request());
  EXPECT_FALSE(response.ok());
  EXPECT_NE(response.error.find("empty reply"), std::string::npos) << response.error;
  EXPECT_EQ(response.input_tokens, 300);
  EXPECT_EQ(provider->usage().input_tokens, 300);
}

TEST(BadReplies, NonObjectAndMissingFieldsAreErrors) {
  for (const std::string body : {"[]", "null", R"({"choices":[]})", R"({"choices":[{"message":7}]})",
                                 R"({"choices":"x","usage":{"prompt_tokens":"many"}})", ""}) {
    FakeLlmServer server({ScriptedReply{200, body, {}, {}}});
    auto provider = make_openai_provider(test_config(server.url(), "gpt-4o"));
    const auto response = provider->complete(mutate_request());
    EXPECT_FALSE(response.ok()) << body;
  }
  for (const std::string body : {R"({"content":"x"})", R"({"content":[{"type":5}]})", "{"}) {
    FakeLlmServer server({ScriptedReply{200, body, {}, {}}});
    auto provider = make_anthropic_provider(test_config(server.url(), "claude-3-5-haiku"));
    const auto response = provider->complete(mutate_request());
    EXPECT_FALSE(response.ok()) << body;
  }
}

TEST(Budget, TokenBudgetStopsFurtherCalls) {
  FakeLlmServer server({ScriptedReply{200, openai_reply("ok", 80, 40), {}, {}}});
  ProviderConfig config = test_config(server.url(), "gpt-4o");
  config.options.budget.max_total_tokens = 100;
  auto sink = std::make_shared<MemoryExchangeSink>();
  auto provider = make_openai_provider(config, sink);

  EXPECT_TRUE(provider->complete(mutate_request()).ok());
  const auto refused = provider->complete(mutate_request());
  EXPECT_FALSE(refused.ok());
  EXPECT_TRUE(refused.budget_exhausted);
  EXPECT_EQ(refused.attempts, 0);
  EXPECT_NE(refused.error.find("budget exhausted"), std::string::npos) << refused.error;
  EXPECT_EQ(server.requests().size(), 1u);  // the refused call never reached the server
  EXPECT_EQ(sink->exchanges().size(), 1u);
}

TEST(Budget, CostBudgetStopsFurtherCalls) {
  FakeLlmServer server({ScriptedReply{200, openai_reply("ok", 1000000, 0), {}, {}}});  // $2.50
  ProviderConfig config = test_config(server.url(), "gpt-4o");
  config.options.budget.max_cost_usd = 4.0;
  auto provider = make_openai_provider(config);
  EXPECT_TRUE(provider->complete(mutate_request()).ok());
  EXPECT_TRUE(provider->complete(mutate_request()).ok());  // $2.50 < $4: still allowed
  const auto refused = provider->complete(mutate_request());
  EXPECT_TRUE(refused.budget_exhausted);
  EXPECT_NE(refused.error.find("budget exhausted"), std::string::npos);
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST(Concurrency, LimitIsRespectedAcrossThreads) {
  FakeLlmServer server({ScriptedReply{200, openai_reply("ok", 1, 1), {}, milliseconds(150)}});
  ProviderConfig config = test_config(server.url(), "gpt-4o");
  config.options.max_concurrency = 2;
  auto provider = make_openai_provider(config);
  std::vector<std::thread> threads;
  std::atomic<int> successes{0};
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&] {
      if (provider->complete(mutate_request()).ok()) ++successes;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(successes, 6);
  EXPECT_EQ(server.requests().size(), 6u);
  EXPECT_EQ(server.max_concurrent(), 2);  // never more than the limit, but the limit is used
  EXPECT_EQ(provider->usage().calls, 6);
}

}  // namespace
}  // namespace kforge::llm

namespace kforge::llm {
namespace {

// A reply far beyond any kernel (10 MB of text) is refused with one line, and what is recorded
// of it stays small: it must not become a 10 MB candidate, exchange log or report.
TEST(OpenAiProvider, AnOversizedReplyIsRefusedAndNotStored) {
  const std::string huge(10u << 20, 'x');
  FakeLlmServer server({ScriptedReply{200, openai_reply(huge, 10, 10), {}, {}}});
  auto sink = std::make_shared<MemoryExchangeSink>();
  auto provider = make_openai_provider(test_config(server.url() + "/v1", "gpt-4o"), sink);

  const LlmResponse response = provider->complete(mutate_request());

  EXPECT_FALSE(response.ok());
  EXPECT_TRUE(response.text.empty());
  EXPECT_NE(response.error.find("over the limit"), std::string::npos) << response.error.substr(0, 200);
  EXPECT_EQ(response.error.find('\n'), std::string::npos);
  ASSERT_EQ(sink->exchanges().size(), 1u);
  EXPECT_LT(sink->exchanges()[0].response_body.size() + sink->exchanges()[0].text.size(), 1u << 20);
}

// Just under the limit is still a normal reply.
TEST(OpenAiProvider, AReplyUnderTheLimitIsUsed) {
  ProviderConfig config;
  const std::string big(config.options.max_reply_bytes - 1, 'y');
  FakeLlmServer server({ScriptedReply{200, openai_reply(big, 10, 10), {}, {}}});
  auto provider = make_openai_provider(test_config(server.url() + "/v1", "gpt-4o"), nullptr);
  const LlmResponse response = provider->complete(mutate_request());
  ASSERT_TRUE(response.ok()) << response.error.substr(0, 200);
  EXPECT_EQ(response.text.size(), big.size());
}

}  // namespace
}  // namespace kforge::llm
