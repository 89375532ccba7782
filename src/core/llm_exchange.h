// One exchange with an LLM, as one typed record with one JSON mapping: the providers fill it,
// every ExchangeSink receives it, exchanges.jsonl holds it as JSON (what `--llm replay:RUN_DIR`
// reads back) and the run store keeps it as a row of llm_exchanges. It never contains the
// API key (the providers send it only in headers and redact it from bodies). It lives in core
// so that llm/ and store/ share it without depending on each other.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace kforge {

struct LlmExchange {
  std::int64_t id = 0;      // its run.db row; 0 until stored
  std::string provider;     // "openai", "anthropic", "replay"
  std::string model;
  std::string purpose;      // "mutate", "analyse", ...; replay matches on it
  std::string candidate_id; // as in the request: a stored id ("17"), a pending token, or empty
  std::string request_json;   // the request body sent (the key travels only in headers)
  std::string response_body;  // raw body of the last attempt
  std::string text;           // extracted reply text (lets replay work without re-parsing)
  std::string finish_reason;
  int http_status = 0;
  // What became of the exchange: "ok", "error", or, set by the search once the reply was
  // used, "garbled", "edits-failed", "rejected", "duplicate". Empty: from `error`.
  std::string status;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  double cost_usd = 0;
  double latency_ms = 0;  // the whole call, retries and back-off included
  int attempts = 0;       // HTTP attempts made
  std::string error;      // empty on success
  std::string timestamp;  // ISO-8601 UTC, e.g. "2025-01-31T12:34:56.789Z"

  // `status`, else "ok" or "error" by whether the call failed.
  std::string outcome() const;
  // The model's text when the call worked, else the raw body the server sent (an error page,
  // truncated JSON): what run.db keeps as the response.
  std::string stored_response() const;
  // candidate_id when it names a stored candidate ("17"), else nullopt.
  std::optional<std::int64_t> stored_candidate_id() const;
};

// Every field; exchange_from_json takes missing or mistyped fields as their defaults, so
// files written by older versions still load.
nlohmann::json to_json(const LlmExchange& exchange);
LlmExchange exchange_from_json(const nlohmann::json& object);

}  // namespace kforge
