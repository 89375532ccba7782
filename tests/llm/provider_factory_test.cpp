// Choosing a provider from --llm, a config file and the environment.
#include <gtest/gtest.h>

#include "fake_llm_server.h"
#include "llm/provider_factory.h"
#include "support/temp_dir.h"
#include "util/files.h"

namespace kforge::llm {
namespace {

TEST(ProviderFactory, NothingConfiguredGivesTheBuiltInSearchReason) {
  const auto selection = select_provider("", environment_from({}));
  EXPECT_FALSE(selection);
  EXPECT_EQ(selection.reason,
            "no LLM configured (set OPENAI_API_KEY or ANTHROPIC_API_KEY, or pass --llm): using "
            "built-in search only");
}

TEST(ProviderFactory, NoneDisables) {
  const auto selection = select_provider("none", environment_from({{"OPENAI_API_KEY", "k"}}));
  EXPECT_FALSE(selection);
  EXPECT_NE(selection.reason.find("disabled"), std::string::npos);
}

TEST(ProviderFactory, PicksUpKeysFromTheEnvironment) {
  auto openai = select_provider("", environment_from({{"OPENAI_API_KEY", "k"}}));
  ASSERT_TRUE(openai) << openai.reason;
  EXPECT_EQ(openai.provider->name(), "openai");
  EXPECT_EQ(openai.provider->model(), kDefaultOpenAiModel);

  auto anthropic = select_provider("", environment_from({{"ANTHROPIC_API_KEY", "k"}}));
  ASSERT_TRUE(anthropic) << anthropic.reason;
  EXPECT_EQ(anthropic.provider->name(), "anthropic");

  auto from_variable = select_provider(
      "", environment_from({{"KFORGE_LLM", "anthropic:claude-3-5-haiku"}, {"ANTHROPIC_API_KEY", "k"}}));
  ASSERT_TRUE(from_variable) << from_variable.reason;
  EXPECT_EQ(from_variable.provider->model(), "claude-3-5-haiku");
}

TEST(ProviderFactory, KforgePrefixedVariablesWin) {
  const auto resolution = resolve_provider_config(
      "anthropic:claude-opus-4", environment_from({{"ANTHROPIC_API_KEY", "plain"},
                                                   {"KFORGE_ANTHROPIC_API_KEY", "override"},
                                                   {"ANTHROPIC_BASE_URL", "https://a.example"},
                                                   {"KFORGE_ANTHROPIC_BASE_URL", "https://b.example"}}));
  ASSERT_TRUE(resolution.config) << resolution.reason;
  EXPECT_EQ(resolution.config->kind, ProviderKind::Anthropic);
  EXPECT_EQ(resolution.config->api_key, "override");
  EXPECT_EQ(resolution.config->base_url, "https://b.example");
  EXPECT_EQ(resolution.config->model, "claude-opus-4");
}

TEST(ProviderFactory, HostedApiWithoutKeyIsAReason) {
  const auto selection = select_provider("openai:gpt-4o", environment_from({}));
  EXPECT_FALSE(selection);
  EXPECT_NE(selection.reason.find("OPENAI_API_KEY"), std::string::npos) << selection.reason;
  EXPECT_EQ(selection.reason.find('\n'), std::string::npos);
}

TEST(ProviderFactory, LocalServerNeedsNoKeyAndWorksEndToEnd) {
  testing::FakeLlmServer server({testing::ScriptedReply{200, testing::openai_reply("hi", 1, 1), {}, {}}});
  // Ollama-style model names contain a colon: only the first one separates the provider.
  auto selection = select_provider(
      "openai:qwen2.5-coder:32b", environment_from({{"OPENAI_BASE_URL", server.url() + "/v1"}}));
  ASSERT_TRUE(selection) << selection.reason;
  EXPECT_EQ(selection.provider->model(), "qwen2.5-coder:32b");
  const auto response = selection.provider->complete({"", {{"user", "hello"}}, 10, 0, "test", ""});
  ASSERT_TRUE(response.ok()) << response.error;
  EXPECT_EQ(response.text, "hi");
  const auto sent = server.requests().at(0);
  EXPECT_EQ(sent.path, "/v1/chat/completions");
  EXPECT_EQ(sent.header("Authorization"), "");  // no key, no header
  EXPECT_EQ(sent.json()["model"], "qwen2.5-coder:32b");
}

TEST(ProviderFactory, TheCallersBudgetIsSetInTheConfigOverTheEnvironments) {
  testing::FakeLlmServer server({testing::ScriptedReply{200, testing::openai_reply("a", 30, 20), {}, {}},
                                 testing::ScriptedReply{200, testing::openai_reply("b", 30, 20), {}, {}}});
  // The environment allows a million tokens; the caller (a resumed run) has 40 left.
  auto selection = select_provider("openai:local",
                                   environment_from({{"OPENAI_BASE_URL", server.url() + "/v1"},
                                                     {"KFORGE_LLM_MAX_TOKENS", "1000000"}}),
                                   nullptr, BudgetLimits{40, 0});
  ASSERT_TRUE(selection) << selection.reason;
  EXPECT_TRUE(selection.provider->complete({"", {{"user", "one"}}, 10, 0, "test", ""}).ok());
  const auto refused = selection.provider->complete({"", {{"user", "two"}}, 10, 0, "test", ""});
  EXPECT_TRUE(refused.budget_exhausted) << refused.error;
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(ProviderFactory, UnknownSpecIsAReason) {
  const auto selection = select_provider("gemini:pro", environment_from({}));
  EXPECT_FALSE(selection);
  EXPECT_NE(selection.reason.find("unknown LLM spec 'gemini:pro'"), std::string::npos);
}

TEST(ProviderFactory, EnvironmentTuning) {
  const auto resolution = resolve_provider_config(
      "openai:my-model", environment_from({{"OPENAI_API_KEY", "k"},
                                           {"KFORGE_LLM_TIMEOUT_S", "42"},
                                           {"KFORGE_LLM_CONNECT_TIMEOUT_S", "1.5"},
                                           {"KFORGE_LLM_MAX_ATTEMPTS", "7"},
                                           {"KFORGE_LLM_MAX_CONCURRENCY", "3"},
                                           {"KFORGE_LLM_MAX_TOKENS", "50000"},
                                           {"KFORGE_LLM_MAX_COST_USD", "2.5"},
                                           {"KFORGE_LLM_PRICE", "1,4"}}));
  ASSERT_TRUE(resolution.config) << resolution.reason;
  const ClientOptions& options = resolution.config->options;
  EXPECT_EQ(options.request_timeout, std::chrono::milliseconds(42000));
  EXPECT_EQ(options.connect_timeout, std::chrono::milliseconds(1500));
  EXPECT_EQ(options.retry.max_attempts, 7);
  EXPECT_EQ(options.max_concurrency, 3);
  EXPECT_EQ(options.budget.max_total_tokens, 50000);
  EXPECT_DOUBLE_EQ(options.budget.max_cost_usd, 2.5);
  ASSERT_EQ(options.prices.count("my-model"), 1u);
  EXPECT_DOUBLE_EQ(options.prices.at("my-model").output_per_mtok, 4);

  const auto bad = resolve_provider_config(
      "openai:gpt-4o", environment_from({{"OPENAI_API_KEY", "k"}, {"KFORGE_LLM_PRICE", "cheap"}}));
  EXPECT_FALSE(bad.config);
  EXPECT_NE(bad.reason.find("KFORGE_LLM_PRICE"), std::string::npos);
}

TEST(ProviderFactory, JsonConfigFile) {
  kforge::testing::TempDir dir;
  const auto path = dir.path() / "llm.json";
  write_file(path, R"({
    // comments are allowed
    "provider": "anthropic", "model": "claude-haiku-4-5", "api_key_env": "MY_CLAUDE_KEY",
    "base_url": "https://proxy.example", "timeout_s": 60, "max_attempts": 2,
    "max_concurrency": 8, "max_cost_usd": 10, "max_tokens_budget": 1000000,
    "prices": {"claude-haiku-4-5": {"input_per_mtok": 0.5, "output_per_mtok": 2.5}}
  })");
  const auto env = environment_from({{"MY_CLAUDE_KEY", "secret"}, {"ANTHROPIC_BASE_URL", "https://x"}});
  const auto resolution = resolve_provider_config(path.string(), env);
  ASSERT_TRUE(resolution.config) << resolution.reason;
  const ProviderConfig& config = *resolution.config;
  EXPECT_EQ(config.kind, ProviderKind::Anthropic);
  EXPECT_EQ(config.model, "claude-haiku-4-5");
  EXPECT_EQ(config.api_key, "secret");
  EXPECT_EQ(config.base_url, "https://proxy.example");  // the file wins over the environment
  EXPECT_EQ(config.options.request_timeout, std::chrono::milliseconds(60000));
  EXPECT_EQ(config.options.retry.max_attempts, 2);
  EXPECT_EQ(config.options.max_concurrency, 8);
  EXPECT_DOUBLE_EQ(config.options.budget.max_cost_usd, 10);
  EXPECT_EQ(config.options.budget.max_total_tokens, 1000000);
  EXPECT_DOUBLE_EQ(config.options.prices.at("claude-haiku-4-5").input_per_mtok, 0.5);

  auto selection = select_provider("config:" + path.string(), env);
  ASSERT_TRUE(selection) << selection.reason;
  EXPECT_EQ(selection.provider->name(), "anthropic");
}

TEST(ProviderFactory, BadConfigFilesAreReasons) {
  kforge::testing::TempDir dir;
  auto reason_for = [&](const std::string& contents) {
    write_file(dir.path() / "c.json", contents);
    const auto selection =
        select_provider((dir.path() / "c.json").string(), environment_from({{"OPENAI_API_KEY", "k"}}));
    EXPECT_FALSE(selection) << contents;
    return selection.reason;
  };
  EXPECT_NE(reason_for(R"({"provider":"openai","api_key":"sk-x"})").find("api_key_env"), std::string::npos);
  EXPECT_NE(reason_for(R"({"provider":"mistral"})").find("must be openai"), std::string::npos);
  EXPECT_NE(reason_for("{not json").find("not a JSON object"), std::string::npos);
  EXPECT_NE(reason_for(R"({"provider":"openai","max_attempts":"many"})").find("c.json"),
            std::string::npos);
  EXPECT_NE(reason_for(R"({"provider":"openai","api_key_env":"UNSET_VAR"})").find("UNSET_VAR"),
            std::string::npos);
  const auto missing = select_provider("config:/nonexistent.json", environment_from({}));
  EXPECT_NE(missing.reason.find("cannot be read"), std::string::npos);
}

}  // namespace
}  // namespace kforge::llm
