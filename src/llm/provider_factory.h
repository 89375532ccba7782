// Turns the user's choice (--llm SPEC, a config file, the environment) into a provider, or a
// one-line reason why the run goes on without one.
//
// SPEC forms:
//   openai:MODEL         OpenAI Chat Completions, or any compatible server via OPENAI_BASE_URL
//   anthropic:MODEL      Anthropic Messages API
//   replay:RUN_DIR       replays RUN_DIR/exchanges.jsonl (or a .jsonl file given directly)
//   config:FILE / FILE.json   a JSON config file (see load_config_file)
//   none | off           no LLM
//   (empty)              $KFORGE_LLM, else the first of OPENAI_API_KEY, ANTHROPIC_API_KEY set
//
// Environment (KFORGE_-prefixed names win over the plain ones):
//   [KFORGE_]OPENAI_API_KEY, [KFORGE_]OPENAI_BASE_URL,
//   [KFORGE_]ANTHROPIC_API_KEY, [KFORGE_]ANTHROPIC_BASE_URL,
//   KFORGE_LLM_TIMEOUT_S, KFORGE_LLM_CONNECT_TIMEOUT_S, KFORGE_LLM_MAX_ATTEMPTS,
//   KFORGE_LLM_MAX_CONCURRENCY, KFORGE_LLM_MAX_TOKENS (token budget of the run),
//   KFORGE_LLM_MAX_COST_USD (cost budget), KFORGE_LLM_PRICE=IN,OUT (USD per million tokens of
//   the chosen model).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "llm/exchange_sink.h"
#include "llm/provider.h"
#include "llm/provider_config.h"

namespace kforge::llm {

// Reads one environment variable; injectable so tests need not touch the real environment.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup process_environment();
EnvLookup environment_from(std::map<std::string, std::string> variables);

inline constexpr const char* kDefaultOpenAiModel = "gpt-4.1";
inline constexpr const char* kDefaultAnthropicModel = "claude-sonnet-4-20250514";

// A config, or (config empty) the one-line reason there is none.
struct ConfigResolution {
  std::optional<ProviderConfig> config;
  std::string reason;
};
ConfigResolution resolve_provider_config(const std::string& spec, const EnvLookup& env);

// JSON config file:
//   { "provider": "openai" | "anthropic" | "replay", "model": "...", "base_url": "...",
//     "api_key_env": "NAME_OF_VARIABLE_HOLDING_THE_KEY", "replay": "RUN_DIR",
//     "timeout_s": 300, "connect_timeout_s": 10, "max_attempts": 4, "retry_base_delay_s": 1,
//     "max_concurrency": 4, "max_tokens_budget": 0, "max_cost_usd": 0,
//     "prices": { "MODEL_PREFIX": { "input_per_mtok": 1.0, "output_per_mtok": 2.0 } } }
// The key itself is deliberately not accepted in the file: config files get copied into run
// folders and shared, keys must not. Values set in the file win over the environment.
ConfigResolution load_config_file(const std::string& path, const EnvLookup& env);

std::unique_ptr<LlmProvider> make_provider(const ProviderConfig& config,
                                           std::shared_ptr<ExchangeSink> sink = nullptr);

struct ProviderSelection {
  std::unique_ptr<LlmProvider> provider;  // null when there is none
  std::string reason;                     // one line, set when provider is null
  explicit operator bool() const { return provider != nullptr; }
};

// Never throws: every problem (unknown spec, missing key, unreadable file) becomes `reason`.
// `budget` is the caller's budget (e.g. a run's flags minus what it already spent), set in the
// provider's config; a limit of 0 keeps the one the environment or the config file gives.
ProviderSelection select_provider(const std::string& spec, const EnvLookup& env,
                                  std::shared_ptr<ExchangeSink> sink = nullptr, BudgetLimits budget = {});

}  // namespace kforge::llm
