// Hands every exchange to several sinks: a run records its exchanges both in run.db (for
// `kforge show` and the report) and in exchanges.jsonl (what `--llm replay:RUN_DIR` reads).
// The provider's notices, and a sink's failure to record, go to the injected `notices`.
#pragma once

#include <memory>
#include <vector>

#include "llm/exchange_sink.h"

namespace kforge {

class FanoutExchangeSink : public llm::ExchangeSink {
 public:
  explicit FanoutExchangeSink(std::vector<std::shared_ptr<llm::ExchangeSink>> sinks, llm::NoticeFn notices = {})
      : sinks_(std::move(sinks)), notices_(std::move(notices)) {}

  // One failing sink must not keep the exchange from the others.
  void record(const LlmExchange& exchange) override {
    for (const auto& sink : sinks_) {
      try {
        sink->record(exchange);
      } catch (const std::exception& e) {
        notify(notices_, llm::NoticeLevel::Warning, std::string("could not record an LLM exchange: ") + e.what());
      }
    }
  }
  void notice(llm::NoticeLevel level, const std::string& text) override { notify(notices_, level, text); }

 private:
  std::vector<std::shared_ptr<llm::ExchangeSink>> sinks_;
  llm::NoticeFn notices_;
};

}  // namespace kforge
