// Everything needed to build a provider: which API, which model, where, with what limits.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>

#include "llm/pricing.h"
#include "llm/retry_policy.h"
#include "llm/usage_ledger.h"

namespace kforge::llm {

enum class ProviderKind { OpenAi, Anthropic, Replay };
std::string to_string(ProviderKind kind);

struct ClientOptions {
  std::chrono::milliseconds connect_timeout{10000};
  // Long kernel rewrites can take minutes to generate; a stalled connection is still cut off.
  std::chrono::milliseconds request_timeout{300000};
  RetryPolicy retry;
  int max_concurrency = 4;  // simultaneous requests, across all threads using the provider
  // A reply's text beyond this is refused, not stored or parsed: no kernel needs 256 KiB, and a
  // hostile or runaway reply must not become a 10 MB report. The HTTP body may be a few times
  // larger (JSON escaping, metadata) and is cut off at max_body_bytes().
  std::size_t max_reply_bytes = 256u << 10;
  std::size_t max_body_bytes() const { return 4 * max_reply_bytes + (64u << 10); }
  BudgetLimits budget;
  std::map<std::string, ModelPrice> prices;  // added to / replacing the built-in price table
};

struct ProviderConfig {
  ProviderKind kind = ProviderKind::OpenAi;
  std::string model;
  std::string base_url;  // empty: the vendor's default
  std::string api_key;   // lives only here and in request headers; never logged or stored
  std::filesystem::path replay_path;  // Replay: an exchanges.jsonl file
  ClientOptions options;

  // "openai:gpt-4o @ https://api.openai.com/v1" - safe to log (no key).
  std::string describe() const;
};

// A base URL on this machine (localhost, 127.x, [::1]); such servers typically need no key.
bool is_local_url(const std::string& url);

}  // namespace kforge::llm
