// Hands every exchange to several sinks: a run records its exchanges both in run.db (for
// `kforge show` and the report) and in exchanges.jsonl (what `--llm replay:RUN_DIR` reads).
#pragma once

#include <memory>
#include <vector>

#include "llm/exchange_sink.h"
#include "util/log.h"

namespace kforge {

class FanoutExchangeSink : public llm::ExchangeSink {
 public:
  explicit FanoutExchangeSink(std::vector<std::shared_ptr<llm::ExchangeSink>> sinks) : sinks_(std::move(sinks)) {}

  // One failing sink must not keep the exchange from the others.
  void record(const LlmExchange& exchange) override {
    for (const auto& sink : sinks_) {
      try {
        sink->record(exchange);
      } catch (const std::exception& e) {
        log::warn("could not record an LLM exchange: {}", e.what());
      }
    }
  }

 private:
  std::vector<std::shared_ptr<llm::ExchangeSink>> sinks_;
};

}  // namespace kforge
