#include "core/llm_exchange.h"

#include <charconv>

namespace kforge {
namespace {

using nlohmann::json;

template <typename T>
void read_field(const json& object, const char* key, T& target) {
  const auto found = object.find(key);
  if (found == object.end() || found->is_null()) return;
  try {
    target = found->get<T>();
  } catch (const json::exception&) {
    // A field of the wrong type keeps its default rather than losing the whole record.
  }
}

}  // namespace

std::string LlmExchange::outcome() const {
  if (!status.empty()) return status;
  return error.empty() ? "ok" : "error";
}

std::string LlmExchange::stored_response() const {
  return error.empty() && !text.empty() ? text : response_body;
}

std::optional<std::int64_t> LlmExchange::stored_candidate_id() const {
  std::int64_t value = 0;
  const char* end = candidate_id.data() + candidate_id.size();
  const auto [ptr, failure] = std::from_chars(candidate_id.data(), end, value);
  if (candidate_id.empty() || failure != std::errc() || ptr != end || value <= 0) return std::nullopt;
  return value;
}

json to_json(const LlmExchange& exchange) {
  json object = {{"provider", exchange.provider},
                 {"model", exchange.model},
                 {"purpose", exchange.purpose},
                 {"candidate_id", exchange.candidate_id},
                 {"request_json", exchange.request_json},
                 {"response_body", exchange.response_body},
                 {"text", exchange.text},
                 {"finish_reason", exchange.finish_reason},
                 {"http_status", exchange.http_status},
                 {"input_tokens", exchange.input_tokens},
                 {"output_tokens", exchange.output_tokens},
                 {"cost_usd", exchange.cost_usd},
                 {"latency_ms", exchange.latency_ms},
                 {"attempts", exchange.attempts},
                 {"error", exchange.error},
                 {"timestamp", exchange.timestamp}};
  if (!exchange.status.empty()) object["status"] = exchange.status;
  if (exchange.id != 0) object["id"] = exchange.id;
  return object;
}

LlmExchange exchange_from_json(const json& object) {
  LlmExchange exchange;
  if (!object.is_object()) return exchange;
  read_field(object, "id", exchange.id);
  read_field(object, "provider", exchange.provider);
  read_field(object, "model", exchange.model);
  read_field(object, "purpose", exchange.purpose);
  read_field(object, "candidate_id", exchange.candidate_id);
  read_field(object, "request_json", exchange.request_json);
  read_field(object, "response_body", exchange.response_body);
  read_field(object, "text", exchange.text);
  read_field(object, "finish_reason", exchange.finish_reason);
  read_field(object, "http_status", exchange.http_status);
  read_field(object, "status", exchange.status);
  read_field(object, "input_tokens", exchange.input_tokens);
  read_field(object, "output_tokens", exchange.output_tokens);
  read_field(object, "cost_usd", exchange.cost_usd);
  read_field(object, "latency_ms", exchange.latency_ms);
  read_field(object, "attempts", exchange.attempts);
  read_field(object, "error", exchange.error);
  read_field(object, "timestamp", exchange.timestamp);
  return exchange;
}

}  // namespace kforge
