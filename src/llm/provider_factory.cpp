#include "llm/provider_factory.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "llm/http_provider.h"
#include "llm/replay_provider.h"

namespace kforge::llm {
namespace {

using nlohmann::json;

constexpr const char* kNoLlmReason =
    "no LLM configured (set OPENAI_API_KEY or ANTHROPIC_API_KEY, or pass --llm): using built-in "
    "search only";

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The first of the variables that is set and non-empty.
std::string first_set(const EnvLookup& env, std::initializer_list<std::string> names) {
  for (const auto& name : names) {
    if (auto value = env(name); value && !trim(*value).empty()) return trim(*value);
  }
  return "";
}

std::string env_prefix(ProviderKind kind) {
  return kind == ProviderKind::Anthropic ? "ANTHROPIC" : "OPENAI";
}

std::string key_from_env(ProviderKind kind, const EnvLookup& env) {
  const std::string prefix = env_prefix(kind);
  return first_set(env, {"KFORGE_" + prefix + "_API_KEY", prefix + "_API_KEY"});
}

std::string base_url_from_env(ProviderKind kind, const EnvLookup& env) {
  const std::string prefix = env_prefix(kind);
  return first_set(env, {"KFORGE_" + prefix + "_BASE_URL", prefix + "_BASE_URL"});
}

std::optional<double> parse_number(const std::string& text) {
  const std::string trimmed = trim(text);
  double value = 0;
  const auto [end, error] =
      std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), value);
  if (error != std::errc() || end != trimmed.data() + trimmed.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

std::chrono::milliseconds seconds_to_ms(double seconds) {
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000.0));
}

// Applies KFORGE_LLM_* tuning variables; returns what is wrong with them, or "".
std::string apply_env_options(ProviderConfig& config, const EnvLookup& env) {
  auto number = [&](const char* name, auto apply) -> std::string {
    const auto value = env(name);
    if (!value || trim(*value).empty()) return "";
    const auto parsed = parse_number(*value);
    if (!parsed) return fmt::format("{}='{}' is not a non-negative number", name, *value);
    apply(*parsed);
    return "";
  };
  ClientOptions& options = config.options;
  for (const std::string& problem : {
           number("KFORGE_LLM_TIMEOUT_S", [&](double v) { options.request_timeout = seconds_to_ms(v); }),
           number("KFORGE_LLM_CONNECT_TIMEOUT_S",
                  [&](double v) { options.connect_timeout = seconds_to_ms(v); }),
           number("KFORGE_LLM_MAX_ATTEMPTS",
                  [&](double v) { options.retry.max_attempts = std::max(1, static_cast<int>(v)); }),
           number("KFORGE_LLM_MAX_CONCURRENCY",
                  [&](double v) { options.max_concurrency = std::max(1, static_cast<int>(v)); }),
           number("KFORGE_LLM_MAX_TOKENS",
                  [&](double v) { options.budget.max_total_tokens = static_cast<std::int64_t>(v); }),
           number("KFORGE_LLM_MAX_COST_USD", [&](double v) { options.budget.max_cost_usd = v; }),
       }) {
    if (!problem.empty()) return problem;
  }
  if (const auto price = env("KFORGE_LLM_PRICE"); price && !trim(*price).empty()) {
    const auto comma = price->find(',');
    const auto input = parse_number(price->substr(0, comma));
    const auto output =
        comma == std::string::npos ? std::nullopt : parse_number(price->substr(comma + 1));
    if (!input || !output) {
      return fmt::format("KFORGE_LLM_PRICE='{}' should be INPUT,OUTPUT in USD per million tokens",
                         *price);
    }
    options.prices[config.model] = ModelPrice{*input, *output};
  }
  return "";
}

// Hosted APIs need a key; a server on this machine or one spoken to in plain http (a vLLM box
// on the LAN) usually does not.
std::string missing_key_reason(const ProviderConfig& config) {
  if (!config.api_key.empty()) return "";
  if (!config.base_url.empty() &&
      (is_local_url(config.base_url) || lower(config.base_url).rfind("http://", 0) == 0)) {
    return "";
  }
  const std::string prefix = env_prefix(config.kind);
  return fmt::format("{}:{} needs an API key: set {}_API_KEY (or KFORGE_{}_API_KEY), or point "
                     "{}_BASE_URL at a local server",
                     to_string(config.kind), config.model, prefix, prefix, prefix);
}

ConfigResolution fail(std::string reason) { return ConfigResolution{std::nullopt, std::move(reason)}; }

ConfigResolution resolve_api_config(ProviderKind kind, const std::string& model,
                                    const EnvLookup& env) {
  ProviderConfig config;
  config.kind = kind;
  config.model = model.empty()
                     ? (kind == ProviderKind::Anthropic ? kDefaultAnthropicModel : kDefaultOpenAiModel)
                     : model;
  config.api_key = key_from_env(kind, env);
  config.base_url = base_url_from_env(kind, env);
  if (auto problem = apply_env_options(config, env); !problem.empty()) return fail(problem);
  if (auto problem = missing_key_reason(config); !problem.empty()) return fail(problem);
  return ConfigResolution{std::move(config), ""};
}

ConfigResolution resolve_replay_config(const std::string& path, const EnvLookup& env) {
  if (trim(path).empty()) return fail("replay needs a run folder: --llm replay:RUN_DIR");
  ProviderConfig config;
  config.kind = ProviderKind::Replay;
  config.replay_path = replay_file_for(trim(path));
  std::error_code error;
  if (!std::filesystem::is_regular_file(config.replay_path, error)) {
    return fail("replay: " + config.replay_path.string() + " does not exist");
  }
  if (auto problem = apply_env_options(config, env); !problem.empty()) return fail(problem);
  return ConfigResolution{std::move(config), ""};
}

}  // namespace

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

EnvLookup environment_from(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const std::string& name) -> std::optional<std::string> {
    const auto found = variables.find(name);
    if (found == variables.end()) return std::nullopt;
    return found->second;
  };
}

ConfigResolution load_config_file(const std::string& path, const EnvLookup& env) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("LLM config " + path + " cannot be read");
  std::stringstream contents;
  contents << in.rdbuf();
  const json file = json::parse(contents.str(), nullptr, /*allow_exceptions=*/false,
                                /*ignore_comments=*/true);
  if (file.is_discarded() || !file.is_object()) {
    return fail("LLM config " + path + " is not a JSON object");
  }
  try {
    const std::string provider = lower(file.value("provider", ""));
    ConfigResolution resolution;
    if (provider == "replay") {
      resolution = resolve_replay_config(file.value("replay", ""), env);
    } else if (provider == "openai" || provider == "anthropic") {
      const ProviderKind kind = provider == "openai" ? ProviderKind::OpenAi : ProviderKind::Anthropic;
      // Resolve without the key check first: the file may name the key's variable or a URL.
      ProviderConfig config;
      config.kind = kind;
      config.model = file.value("model", std::string(kind == ProviderKind::Anthropic
                                                         ? kDefaultAnthropicModel
                                                         : kDefaultOpenAiModel));
      config.api_key = key_from_env(kind, env);
      config.base_url = base_url_from_env(kind, env);
      if (auto problem = apply_env_options(config, env); !problem.empty()) return fail(problem);
      if (file.contains("api_key")) {
        return fail("LLM config " + path +
                    ": put the key in an environment variable and name it with \"api_key_env\"");
      }
      if (file.contains("api_key_env")) {
        const std::string variable = file["api_key_env"].get<std::string>();
        config.api_key = first_set(env, {variable});
        if (config.api_key.empty()) {
          return fail("LLM config " + path + ": api_key_env names " + variable + ", which is not set");
        }
      }
      if (file.contains("base_url")) config.base_url = file["base_url"].get<std::string>();
      resolution = ConfigResolution{std::move(config), ""};
    } else {
      return fail("LLM config " + path + ": \"provider\" must be openai, anthropic or replay");
    }
    if (!resolution.config) return resolution;

    ProviderConfig& config = *resolution.config;
    ClientOptions& options = config.options;
    if (file.contains("timeout_s")) options.request_timeout = seconds_to_ms(file["timeout_s"].get<double>());
    if (file.contains("connect_timeout_s"))
      options.connect_timeout = seconds_to_ms(file["connect_timeout_s"].get<double>());
    if (file.contains("max_attempts"))
      options.retry.max_attempts = std::max(1, file["max_attempts"].get<int>());
    if (file.contains("retry_base_delay_s"))
      options.retry.base_delay = seconds_to_ms(file["retry_base_delay_s"].get<double>());
    if (file.contains("max_concurrency"))
      options.max_concurrency = std::max(1, file["max_concurrency"].get<int>());
    if (file.contains("max_tokens_budget"))
      options.budget.max_total_tokens = file["max_tokens_budget"].get<std::int64_t>();
    if (file.contains("max_cost_usd")) options.budget.max_cost_usd = file["max_cost_usd"].get<double>();
    if (file.contains("prices")) {
      for (const auto& [model, price] : file["prices"].items()) {
        options.prices[model] = ModelPrice{price.at("input_per_mtok").get<double>(),
                                           price.at("output_per_mtok").get<double>()};
      }
    }
    if (config.kind != ProviderKind::Replay) {
      if (auto problem = missing_key_reason(config); !problem.empty()) return fail(problem);
    }
    return resolution;
  } catch (const json::exception& e) {
    return fail("LLM config " + path + ": " + e.what());
  }
}

ConfigResolution resolve_provider_config(const std::string& raw_spec, const EnvLookup& env) {
  std::string spec = trim(raw_spec);
  if (spec.empty()) spec = first_set(env, {"KFORGE_LLM"});
  if (spec.empty()) {
    if (!key_from_env(ProviderKind::OpenAi, env).empty()) {
      return resolve_api_config(ProviderKind::OpenAi, "", env);
    }
    if (!key_from_env(ProviderKind::Anthropic, env).empty()) {
      return resolve_api_config(ProviderKind::Anthropic, "", env);
    }
    return fail(kNoLlmReason);
  }
  const std::string lowered = lower(spec);
  if (lowered == "none" || lowered == "off") {
    return fail("LLM disabled (--llm " + spec + "): using built-in search only");
  }
  if (lowered.rfind("config:", 0) == 0) return load_config_file(spec.substr(7), env);
  if (ends_with(lowered, ".json")) return load_config_file(spec, env);

  // Split at the first colon only: model names may contain colons ("qwen2.5-coder:32b").
  const auto colon = spec.find(':');
  const std::string kind = lower(spec.substr(0, colon));
  const std::string rest = colon == std::string::npos ? "" : trim(spec.substr(colon + 1));
  if (kind == "openai") return resolve_api_config(ProviderKind::OpenAi, rest, env);
  if (kind == "anthropic") return resolve_api_config(ProviderKind::Anthropic, rest, env);
  if (kind == "replay") return resolve_replay_config(rest, env);
  return fail("unknown LLM spec '" + spec +
              "' (expected openai:MODEL, anthropic:MODEL, replay:RUN_DIR, a .json config file "
              "or none)");
}

std::unique_ptr<LlmProvider> make_provider(const ProviderConfig& config,
                                           std::shared_ptr<ExchangeSink> sink) {
  switch (config.kind) {
    case ProviderKind::OpenAi: return make_openai_provider(config, std::move(sink));
    case ProviderKind::Anthropic: return make_anthropic_provider(config, std::move(sink));
    case ProviderKind::Replay: return make_replay_provider(config.replay_path, std::move(sink));
  }
  return nullptr;
}

ProviderSelection select_provider(const std::string& spec, const EnvLookup& env,
                                  std::shared_ptr<ExchangeSink> sink, BudgetLimits budget) {
  ProviderSelection selection;
  try {
    auto resolution = resolve_provider_config(spec, env);
    if (!resolution.config) {
      selection.reason = resolution.reason;
      return selection;
    }
    BudgetLimits& limits = resolution.config->options.budget;
    if (budget.max_total_tokens > 0) limits.max_total_tokens = budget.max_total_tokens;
    if (budget.max_cost_usd > 0) limits.max_cost_usd = budget.max_cost_usd;
    selection.provider = make_provider(*resolution.config, std::move(sink));
    if (!selection.provider) selection.reason = "could not create the LLM provider";
  } catch (const std::exception& e) {
    selection.provider.reset();
    selection.reason = std::string("LLM setup failed: ") + e.what();
  }
  return selection;
}

}  // namespace kforge::llm
