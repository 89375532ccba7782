#include "llm/replay_provider.h"

#include <stdexcept>

#include "llm/jsonl_exchange_sink.h"

namespace kforge::llm {

ReplayProvider::ReplayProvider(std::vector<LlmExchange> exchanges,
                               std::shared_ptr<ExchangeSink> sink)
    : sink_(std::move(sink)) {
  if (!exchanges.empty()) model_ = exchanges.front().model;
  for (auto& exchange : exchanges) {
    by_purpose_[exchange.purpose].push_back(std::move(exchange));
  }
}

std::size_t ReplayProvider::remaining() const {
  std::lock_guard lock(mutex_);
  std::size_t count = 0;
  for (const auto& [purpose, queue] : by_purpose_) count += queue.size();
  return count;
}

LlmResponse ReplayProvider::complete(const LlmRequest& request) {
  LlmResponse response;
  LlmExchange exchange;
  {
    std::lock_guard lock(mutex_);
    auto found = by_purpose_.find(request.purpose);
    if (found == by_purpose_.end() || found->second.empty()) {
      response.error = "replay: no recorded exchange left for purpose '" + request.purpose + "'";
      return response;
    }
    exchange = std::move(found->second.front());
    found->second.pop_front();
  }
  response.text = exchange.text;
  response.finish_reason = exchange.finish_reason;
  response.input_tokens = exchange.input_tokens;
  response.output_tokens = exchange.output_tokens;
  response.cost_usd = exchange.cost_usd;
  response.latency_ms = exchange.latency_ms;
  response.attempts = exchange.attempts;
  response.http_status = exchange.http_status;
  response.error = exchange.error;
  response.raw_body = exchange.response_body;
  // Replayed calls cost nothing now, but the ledger mirrors the recorded run's spending so
  // that reports of a replayed run read like the original.
  ledger_.record(response.input_tokens, response.output_tokens, response.cost_usd, !response.ok());

  if (sink_) {
    exchange.provider = "replay";
    exchange.candidate_id = request.candidate_id;  // ids belong to the new run
    exchange.timestamp = utc_timestamp_now();
    try {
      sink_->record(exchange);
    } catch (const std::exception& e) {
      sink_->notice(NoticeLevel::Warning, std::string("could not record a replayed LLM exchange: ") + e.what());
    }
  }
  return response;
}

std::filesystem::path replay_file_for(const std::filesystem::path& path) {
  if (std::filesystem::is_directory(path)) return path / "exchanges.jsonl";
  return path;
}

std::unique_ptr<ReplayProvider> make_replay_provider(const std::filesystem::path& path,
                                                     std::shared_ptr<ExchangeSink> sink) {
  const auto file = replay_file_for(path);
  if (!std::filesystem::is_regular_file(file)) {
    throw std::runtime_error("replay: " + file.string() + " does not exist");
  }
  const NoticeFn notices = [sink](NoticeLevel level, const std::string& text) {
    if (sink) sink->notice(level, text);
  };
  return std::make_unique<ReplayProvider>(read_exchanges_jsonl(file, notices), std::move(sink));
}

}  // namespace kforge::llm
