// Stores every LLM exchange of a run in run.db (RunStore::add_llm_exchange), linked to the
// candidate it produced.
//
// The candidate a reply turns into does not exist yet when the reply arrives: the search
// inserts it later, or drops it as a duplicate. So an exchange whose candidate_id is a
// pending token (make_pending_token()) is held until settle() says which stored candidate
// it belongs to; every other exchange is written at once (a numeric candidate_id links it
// to that candidate, an empty one to none). Held exchanges are also written when the sink is
// destroyed, so none is ever lost silently. The API key is never part of an LlmExchange
// (the providers keep it in request headers and redact it from bodies), so nothing here can
// write it.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "llm/exchange_sink.h"
#include "store/run_store.h"

namespace kforge {

class StoreExchangeSink : public llm::ExchangeSink {
 public:
  // `notices` hears of exchanges the destructor could not store (it must not throw).
  explicit StoreExchangeSink(RunStore& store, llm::NoticeFn notices = {})
      : store_(store), notices_(std::move(notices)) {}
  ~StoreExchangeSink() override;
  StoreExchangeSink(const StoreExchangeSink&) = delete;
  StoreExchangeSink& operator=(const StoreExchangeSink&) = delete;

  void record(const LlmExchange& exchange) override;

  // A fresh token for LlmRequest::candidate_id: exchanges carrying it wait for settle().
  std::string make_pending_token();
  static bool is_pending_token(const std::string& candidate_id);

  // Writes the exchanges held under `token`, linked to `candidate` (none: unlinked). A
  // non-empty `outcome` replaces the "ok" status of those exchanges ("garbled",
  // "edits-failed", "rejected", "duplicate"): what became of the reply, not of the HTTP call.
  void settle(const std::string& token, std::optional<std::int64_t> candidate, const std::string& outcome = "");

 private:
  void write(const LlmExchange& exchange);

  RunStore& store_;
  llm::NoticeFn notices_;
  std::mutex mutex_;
  std::int64_t next_token_ = 1;
  std::map<std::string, std::vector<LlmExchange>> held_;
};

}  // namespace kforge
