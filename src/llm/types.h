// Plain data exchanged with an LLM provider: what we ask and what comes back (the record of
// one exchange, kept for audit and replay, is core/llm_exchange.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/llm_exchange.h"

namespace kforge::llm {

struct LlmMessage {
  std::string role;  // "user" or "assistant" ("system" is folded into LlmRequest::system)
  std::string content;
};

struct LlmRequest {
  std::string system;  // system prompt; may be empty
  std::vector<LlmMessage> messages;
  int max_tokens = 4096;
  double temperature = 0.7;
  std::string purpose;       // what the call is for ("mutate", "ideas", ...); replay matches on it
  std::string candidate_id;  // the candidate this call works on; empty when none
};

struct LlmResponse {
  std::string text;           // the model's reply; empty on error
  std::string finish_reason;  // "stop", "length", "end_turn", "max_tokens", ...
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  double cost_usd = 0;     // 0 when the model's price is unknown (see cost_known)
  bool cost_known = true;  // false: the model is not in the price table, cost_usd is 0
  double latency_ms = 0;   // wall time of the whole call, retries and back-off included
  int attempts = 0;        // HTTP attempts made (0: failed before sending, e.g. budget)
  int http_status = 0;     // of the last attempt; 0 when no HTTP response arrived
  std::string error;       // empty on success; one line saying what went wrong
  std::string raw_body;    // response body of the last attempt, as received
  // The token/cost budget is spent: no request was sent, and none will be. The run should
  // stop cleanly rather than try again.
  bool budget_exhausted = false;

  bool ok() const { return error.empty(); }
};

// One request/response pair as every ExchangeSink receives it: core/llm_exchange.h.
using kforge::LlmExchange;

// Current time as an ISO-8601 UTC string with milliseconds.
std::string utc_timestamp_now();

}  // namespace kforge::llm
