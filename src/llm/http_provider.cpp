#include "llm/http_provider.h"

#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "llm/anthropic_format.h"
#include "llm/http_client.h"
#include "llm/openai_format.h"
#include "util/secrets.h"

namespace kforge::llm {
namespace {

using Clock = std::chrono::steady_clock;

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

bool is_success(int status) { return status >= 200 && status <= 299; }

void tell(const std::shared_ptr<ExchangeSink>& sink, NoticeLevel level, const std::string& text) {
  if (sink) sink->notice(level, text);
}

}  // namespace

HttpLlmProvider::HttpLlmProvider(ProviderConfig config, std::unique_ptr<WireFormat> format,
                                 std::shared_ptr<ExchangeSink> sink,
                                 std::shared_ptr<ConcurrencyLimiter> limiter)
    : config_(std::move(config)),
      format_(std::move(format)),
      sink_(std::move(sink)),
      limiter_(limiter ? std::move(limiter)
                       : std::make_shared<ConcurrencyLimiter>(config_.options.max_concurrency)),
      prices_(PriceTable::with_defaults(config_.options.prices)),
      ledger_(config_.options.budget),
      rng_(std::random_device{}()) {
  if (config_.base_url.empty()) config_.base_url = format_->default_base_url();
  register_secret(config_.api_key);  // wherever the key came from, it is redacted everywhere
}

std::string HttpLlmProvider::redact(std::string text) const {
  const std::string& key = config_.api_key;
  if (!key.empty())
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at)) text.replace(at, key.size(), kRedacted);
  return redact_secrets(std::move(text));
}

std::chrono::milliseconds HttpLlmProvider::next_delay(
    int failed_attempt, std::optional<std::chrono::milliseconds> retry_after) {
  std::lock_guard lock(rng_mutex_);
  return config_.options.retry.delay_before_retry(failed_attempt, retry_after, rng_);
}

void HttpLlmProvider::record(const LlmExchange& exchange) {
  if (!sink_) return;
  try {
    sink_->record(exchange);
  } catch (const std::exception& e) {
    // Losing an audit record is bad, but not worth losing the reply the search paid for.
    tell(sink_, NoticeLevel::Warning, fmt::format("could not record an LLM exchange: {}", e.what()));
  }
}

LlmResponse HttpLlmProvider::complete(const LlmRequest& request) {
  const auto start = Clock::now();
  LlmExchange exchange;
  exchange.provider = name();
  exchange.model = config_.model;
  exchange.purpose = request.purpose;
  exchange.candidate_id = request.candidate_id;
  exchange.timestamp = utc_timestamp_now();

  LlmResponse response;
  if (auto reason = ledger_.exhausted_reason()) {
    // Fail fast without a network call; not an exchange, so nothing is recorded.
    response.error = *reason;
    response.budget_exhausted = true;
    return response;
  }
  try {
    response = complete_unguarded(request, exchange);
  } catch (const std::exception& e) {
    // Nothing below should throw, but an exception must never end the caller's run.
    response.error = redact(std::string("internal error in LLM client: ") + e.what());
  }
  response.latency_ms = milliseconds_since(start);

  const auto cost = prices_.cost_usd(config_.model, response.input_tokens, response.output_tokens);
  response.cost_known = cost.has_value();
  response.cost_usd = cost.value_or(0.0);
  if (!cost && !warned_unknown_price_.exchange(true)) {
    tell(sink_, NoticeLevel::Warning,
         fmt::format("no price known for model '{}': its cost is counted as $0 (set prices in the LLM "
                     "config or KFORGE_LLM_PRICE=IN,OUT in USD per million tokens)",
                     config_.model));
  }
  ledger_.record(response.input_tokens, response.output_tokens, response.cost_usd, !response.ok());

  exchange.response_body = response.raw_body;
  exchange.text = response.text;
  exchange.finish_reason = response.finish_reason;
  exchange.http_status = response.http_status;
  exchange.input_tokens = response.input_tokens;
  exchange.output_tokens = response.output_tokens;
  exchange.cost_usd = response.cost_usd;
  exchange.latency_ms = response.latency_ms;
  exchange.attempts = response.attempts;
  exchange.error = response.error;
  record(exchange);
  if (!response.ok()) {
    tell(sink_, NoticeLevel::Detail,
         fmt::format("LLM {} ({}) failed: {}", config_.describe(), request.purpose, response.error));
  }
  return response;
}

LlmResponse HttpLlmProvider::complete_unguarded(const LlmRequest& request, LlmExchange& exchange) {
  LlmResponse response;
  HttpRequest http;
  http.url = format_->endpoint(config_.base_url);
  http.headers = format_->headers(config_.api_key);
  // Prompts carry compile logs and worker messages: no configured secret goes to the server.
  http.body = redact(redact_secrets_json(format_->request_body(config_.model, request))
                         .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  http.connect_timeout = config_.options.connect_timeout;
  http.total_timeout = config_.options.request_timeout;
  http.max_response_bytes = config_.options.max_body_bytes();
  exchange.request_json = http.body;  // the body only: the key is in http.headers

  const int max_attempts = std::max(1, config_.options.retry.max_attempts);
  for (int attempt = 1; attempt <= max_attempts; ++attempt) {
    HttpResponse reply;
    {
      ConcurrencyLimiter::Slot slot(*limiter_);  // held for the request only, not the back-off
      reply = http_post(http);
    }
    response.attempts = attempt;
    response.http_status = reply.status;
    response.raw_body = redact(reply.body);

    bool retryable = false;
    if (reply.too_large) {  // asking again would be billed again for the same runaway reply
      response.error = fmt::format("{}: reply is over the limit of {} bytes; not used", name(),
                                   config_.options.max_body_bytes());
      break;
    }
    if (!reply.transport_ok()) {
      response.error = redact(fmt::format("{} request to {} failed{}: {}", name(), http.url,
                                          reply.timed_out ? " (timed out)" : "",
                                          reply.transport_error));
      retryable = true;  // connection refused/reset, DNS hiccups and timeouts are transient
    } else if (is_success(reply.status)) {
      const ParsedCompletion parsed = format_->parse_reply(reply.body);
      if (parsed.text.size() > config_.options.max_reply_bytes) {
        response.raw_body = response.raw_body.substr(0, 4096) + "... [cut: reply too large]";
        response.error = fmt::format("{}: reply of {} bytes is over the limit of {} bytes; not used", name(),
                                     parsed.text.size(), config_.options.max_reply_bytes);
        return response;
      }
      response.text = parsed.text;
      response.finish_reason = parsed.finish_reason;
      response.input_tokens = parsed.input_tokens;
      response.output_tokens = parsed.output_tokens;
      // A malformed 200 is not retried: it was billed, and asking again rarely helps.
      response.error = parsed.error.empty() ? "" : redact(name() + ": " + parsed.error);
      return response;
    } else {
      response.error = redact(fmt::format("{} returned HTTP {}: {}", name(), reply.status,
                                          format_->error_message(reply.body)));
      retryable = RetryPolicy::retryable_status(reply.status);
    }
    if (!retryable || attempt == max_attempts) break;

    const auto delay = next_delay(attempt, reply.retry_after);
    tell(sink_, NoticeLevel::Detail,
         fmt::format("LLM attempt {}/{} failed ({}); retrying in {} ms", attempt, max_attempts, response.error,
                     delay.count()));
    std::this_thread::sleep_for(delay);
  }
  if (response.attempts > 1) {
    response.error += fmt::format(" (after {} attempts)", response.attempts);
  }
  return response;
}

std::unique_ptr<LlmProvider> make_openai_provider(ProviderConfig config,
                                                  std::shared_ptr<ExchangeSink> sink) {
  config.kind = ProviderKind::OpenAi;
  return std::make_unique<HttpLlmProvider>(std::move(config), std::make_unique<OpenAiFormat>(),
                                           std::move(sink));
}

std::unique_ptr<LlmProvider> make_anthropic_provider(ProviderConfig config,
                                                     std::shared_ptr<ExchangeSink> sink) {
  config.kind = ProviderKind::Anthropic;
  return std::make_unique<HttpLlmProvider>(std::move(config), std::make_unique<AnthropicFormat>(),
                                           std::move(sink));
}

}  // namespace kforge::llm
