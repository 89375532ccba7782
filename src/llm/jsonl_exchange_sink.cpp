#include "llm/jsonl_exchange_sink.h"

#include <stdexcept>
#include <string>

#include "util/secrets.h"

namespace kforge::llm {

using nlohmann::json;

json exchange_to_json(const LlmExchange& exchange) {
  return {{"provider", exchange.provider},
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
}

namespace {
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

LlmExchange exchange_from_json(const json& object) {
  LlmExchange exchange;
  if (!object.is_object()) return exchange;
  read_field(object, "provider", exchange.provider);
  read_field(object, "model", exchange.model);
  read_field(object, "purpose", exchange.purpose);
  read_field(object, "candidate_id", exchange.candidate_id);
  read_field(object, "request_json", exchange.request_json);
  read_field(object, "response_body", exchange.response_body);
  read_field(object, "text", exchange.text);
  read_field(object, "finish_reason", exchange.finish_reason);
  read_field(object, "http_status", exchange.http_status);
  read_field(object, "input_tokens", exchange.input_tokens);
  read_field(object, "output_tokens", exchange.output_tokens);
  read_field(object, "cost_usd", exchange.cost_usd);
  read_field(object, "latency_ms", exchange.latency_ms);
  read_field(object, "attempts", exchange.attempts);
  read_field(object, "error", exchange.error);
  read_field(object, "timestamp", exchange.timestamp);
  return exchange;
}

JsonlExchangeSink::JsonlExchangeSink(const std::filesystem::path& path) : path_(path) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  out_.open(path, std::ios::app | std::ios::binary);
  if (!out_) throw std::runtime_error("cannot open " + path.string() + " for writing");
}

void JsonlExchangeSink::record(const LlmExchange& exchange) {
  // Invalid UTF-8 in a reply must not make dump() throw: replace it instead.
  // Every configured secret is removed, whatever field it hides in.
  const std::string line = redact_secrets(
      redact_secrets_json(exchange_to_json(exchange)).dump(-1, ' ', false, json::error_handler_t::replace));
  std::lock_guard lock(mutex_);
  out_ << line << '\n';
  out_.flush();  // a crash loses at most the exchange being written
  if (!out_) throw std::runtime_error("cannot write to " + path_.string());
}

std::vector<LlmExchange> read_exchanges_jsonl(const std::filesystem::path& path, const NoticeFn& notices) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::vector<LlmExchange> exchanges;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const json object = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (object.is_discarded() || !object.is_object()) {
      notify(notices, NoticeLevel::Warning,
             path.string() + ":" + std::to_string(line_number) + ": not a JSON exchange record, skipped");
      continue;
    }
    exchanges.push_back(exchange_from_json(object));
  }
  return exchanges;
}

}  // namespace kforge::llm
