#include "search/llm_operators/store_exchange_sink.h"

namespace kforge {
namespace {
constexpr std::string_view kPendingPrefix = "pending:";
}  // namespace

StoreExchangeSink::~StoreExchangeSink() {
  std::map<std::string, std::vector<LlmExchange>> left;
  {
    std::lock_guard lock(mutex_);
    left.swap(held_);
  }
  for (const auto& [token, exchanges] : left)
    for (const auto& exchange : exchanges) {
      try {
        write(exchange);
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

void StoreExchangeSink::record(const LlmExchange& exchange) {
  if (is_pending_token(exchange.candidate_id)) {
    std::lock_guard lock(mutex_);
    held_[exchange.candidate_id].push_back(exchange);
    return;
  }
  write(exchange);
}

void StoreExchangeSink::settle(const std::string& token, std::optional<std::int64_t> candidate,
                               const std::string& outcome) {
  std::vector<LlmExchange> exchanges;
  {
    std::lock_guard lock(mutex_);
    const auto found = held_.find(token);
    if (found == held_.end()) return;  // the call never reached the model (e.g. budget spent)
    exchanges = std::move(found->second);
    held_.erase(found);
  }
  for (auto& exchange : exchanges) {
    exchange.candidate_id = candidate ? std::to_string(*candidate) : "";
    if (!outcome.empty() && exchange.outcome() == "ok") exchange.status = outcome;
    write(exchange);
  }
}

void StoreExchangeSink::write(const LlmExchange& exchange) { store_.add_llm_exchange(exchange); }

}  // namespace kforge
