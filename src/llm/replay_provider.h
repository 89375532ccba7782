// Replays a recorded run: each call gets the next recorded exchange with the same purpose, in
// the order they were recorded, so a search can be re-run deterministically and offline.
#pragma once

#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "llm/exchange_sink.h"
#include "llm/provider.h"

namespace kforge::llm {

class ReplayProvider : public LlmProvider {
 public:
  // `sink` (may be null) receives each replayed exchange, so the new run has its own record.
  explicit ReplayProvider(std::vector<LlmExchange> exchanges,
                          std::shared_ptr<ExchangeSink> sink = nullptr);

  // A recorded failure replays as the same failure. When no recorded exchange is left for the
  // purpose, the response's error says so (the run diverged from the recording).
  LlmResponse complete(const LlmRequest& request) override;
  std::string name() const override { return "replay"; }
  std::string model() const override { return model_; }
  UsageTotals usage() const override { return ledger_.totals(); }

  std::size_t remaining() const;  // recorded exchanges not yet replayed

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::deque<LlmExchange>> by_purpose_;
  std::string model_;
  std::shared_ptr<ExchangeSink> sink_;
  UsageLedger ledger_;
};

// `path` is an exchanges.jsonl file or a run folder containing one; throws
// std::runtime_error naming the path when neither exists.
std::unique_ptr<ReplayProvider> make_replay_provider(const std::filesystem::path& path,
                                                     std::shared_ptr<ExchangeSink> sink = nullptr);
std::filesystem::path replay_file_for(const std::filesystem::path& path);

}  // namespace kforge::llm
