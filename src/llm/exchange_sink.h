// Where every LLM exchange goes: the run store implements this with SQLite; the JSON-lines
// sink lets a run be recorded (and replayed) without the store.
#pragma once

#include <mutex>
#include <vector>

#include "llm/notices.h"
#include "llm/types.h"

namespace kforge::llm {

class ExchangeSink {
 public:
  virtual ~ExchangeSink() = default;
  // Called from any thread, once per complete() call that reached the network (or replay).
  // An exception thrown here is caught and reported as a notice, never propagated.
  virtual void record(const LlmExchange& exchange) = 0;
  // The provider's notices (retries, unknown prices, exchanges it could not record) go to its
  // sink, the one object every provider is given; a sink that shows nothing ignores them.
  virtual void notice(NoticeLevel /*level*/, const std::string& /*text*/) {}
};

// Keeps exchanges in memory; for tests and for callers that want to inspect a run's calls.
class MemoryExchangeSink : public ExchangeSink {
 public:
  void record(const LlmExchange& exchange) override {
    std::lock_guard lock(mutex_);
    exchanges_.push_back(exchange);
  }
  std::vector<LlmExchange> exchanges() const {
    std::lock_guard lock(mutex_);
    return exchanges_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<LlmExchange> exchanges_;
};

}  // namespace kforge::llm
