// A provider that talks HTTP to a hosted or self-hosted model. The wire format decides the
// API; this class adds what every API needs: retries, timeouts, a concurrency limit, token
// and cost accounting, the budget, and recording each exchange.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <random>

#include "llm/concurrency_limiter.h"
#include "llm/exchange_sink.h"
#include "llm/pricing.h"
#include "llm/provider.h"
#include "llm/provider_config.h"
#include "llm/wire_format.h"

namespace kforge::llm {

class HttpLlmProvider : public LlmProvider {
 public:
  // `sink` may be null. `limiter` may be shared between providers so that they draw from one
  // pool of slots; when null, the provider makes its own with options.max_concurrency.
  HttpLlmProvider(ProviderConfig config, std::unique_ptr<WireFormat> format,
                  std::shared_ptr<ExchangeSink> sink = nullptr,
                  std::shared_ptr<ConcurrencyLimiter> limiter = nullptr);

  LlmResponse complete(const LlmRequest& request) override;
  std::string name() const override { return format_->provider_name(); }
  std::string model() const override { return config_.model; }
  UsageTotals usage() const override { return ledger_.totals(); }

  const ProviderConfig& config() const { return config_; }

 private:
  LlmResponse complete_unguarded(const LlmRequest& request, LlmExchange& exchange);
  std::chrono::milliseconds next_delay(int failed_attempt,
                                       std::optional<std::chrono::milliseconds> retry_after);
  // Removes the API key from text that came from outside (a server may echo it back).
  std::string redact(std::string text) const;
  void record(const LlmExchange& exchange);

  ProviderConfig config_;
  std::unique_ptr<WireFormat> format_;
  std::shared_ptr<ExchangeSink> sink_;
  std::shared_ptr<ConcurrencyLimiter> limiter_;
  PriceTable prices_;
  UsageLedger ledger_;
  std::mutex rng_mutex_;
  std::mt19937_64 rng_;
  std::atomic<bool> warned_unknown_price_{false};
};

std::unique_ptr<LlmProvider> make_openai_provider(ProviderConfig config,
                                                  std::shared_ptr<ExchangeSink> sink = nullptr);
std::unique_ptr<LlmProvider> make_anthropic_provider(ProviderConfig config,
                                                     std::shared_ptr<ExchangeSink> sink = nullptr);

}  // namespace kforge::llm
