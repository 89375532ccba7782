#include "search/llm/store_exchange_sink.h"

#include <charconv>


namespace kforge {
namespace {
constexpr std::string_view kPendingPrefix = "pending:";
}  // namespace

std::optional<std::int64_t> stored_candidate_id(const std::string& candidate_id) {
  std::int64_t id = 0;
  const char* end = candidate_id.data() + candidate_id.size();
  const auto [ptr, error] = std::from_chars(candidate_id.data(), end, id);
  if (candidate_id.empty() || error != std::errc() || ptr != end || id <= 0) return std::nullopt;
  return id;
}

LlmExchangeRecord exchange_record(const llm::LlmExchange& exchange) {
  LlmExchangeRecord record;
  record.candidate_id = stored_candidate_id(exchange.candidate_id);
  record.provider = exchange.provider;
  record.model = exchange.model;
  record.purpose = exchange.purpose;
  record.request = nlohmann::json::parse(exchange.request_json, nullptr, false);
  if (record.request.is_discarded()) record.request = exchange.request_json;
  const bool ok = exchange.error.empty();
  record.response = ok && !exchange.text.empty() ? exchange.text : exchange.response_body;
  record.status = ok ? "ok" : "error";
  record.input_tokens = exchange.input_tokens;
  record.output_tokens = exchange.output_tokens;
  record.cost_usd = exchange.cost_usd;
  record.latency_s = exchange.latency_ms / 1000.0;
  record.attempts = exchange.attempts;
  record.error = exchange.error;
  return record;
}

StoreExchangeSink::~StoreExchangeSink() {
  std::map<std::string, std::vector<LlmExchangeRecord>> left;
  {
    std::lock_guard lock(mutex_);
    left.swap(held_);
  }
  for (auto& [token, records] : left)
    for (auto& record : records) {
      try {
        write(std::move(record));
      } catch (const std::exception& e) {
        // A destructor must not throw.
        notify(notices_, llm::NoticeLevel::Warning, std::string("could not store an LLM exchange: ") + e.what());
      }
    }
}

bool StoreExchangeSink::is_pending_token(const std::string& candidate_id) {
  return candidate_id.rfind(kPendingPrefix, 0) == 0;
}

std::string StoreExchangeSink::make_pending_token() {
  std::lock_guard lock(mutex_);
  return std::string(kPendingPrefix) + std::to_string(next_token_++);
}

void StoreExchangeSink::record(const llm::LlmExchange& exchange) {
  LlmExchangeRecord record = exchange_record(exchange);
  if (is_pending_token(exchange.candidate_id)) {
    std::lock_guard lock(mutex_);
    held_[exchange.candidate_id].push_back(std::move(record));
    return;
  }
  write(std::move(record));
}

void StoreExchangeSink::settle(const std::string& token, std::optional<std::int64_t> candidate,
                               const std::string& outcome) {
  std::vector<LlmExchangeRecord> records;
  {
    std::lock_guard lock(mutex_);
    const auto found = held_.find(token);
    if (found == held_.end()) return;  // the call never reached the model (e.g. budget spent)
    records = std::move(found->second);
    held_.erase(found);
  }
  for (auto& record : records) {
    record.candidate_id = candidate;
    if (!outcome.empty() && record.status == "ok") record.status = outcome;
    write(std::move(record));
  }
}

void StoreExchangeSink::write(LlmExchangeRecord record) { store_.add_llm_exchange(record); }

}  // namespace kforge
