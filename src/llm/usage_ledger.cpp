#include "llm/usage_ledger.h"

#include <fmt/format.h>

namespace kforge::llm {

std::optional<std::string> UsageLedger::exhausted_reason() const {
  std::lock_guard lock(mutex_);
  if (limits_.max_total_tokens > 0 && totals_.total_tokens() >= limits_.max_total_tokens) {
    return fmt::format("budget exhausted: {} tokens used of {} allowed", totals_.total_tokens(),
                       limits_.max_total_tokens);
  }
  if (limits_.max_cost_usd > 0 && totals_.cost_usd >= limits_.max_cost_usd) {
    return fmt::format("budget exhausted: ${:.4f} spent of ${:.4f} allowed", totals_.cost_usd,
                       limits_.max_cost_usd);
  }
  return std::nullopt;
}

void UsageLedger::record(std::int64_t input_tokens, std::int64_t output_tokens, double cost_usd,
                         bool failed) {
  std::lock_guard lock(mutex_);
  ++totals_.calls;
  if (failed) ++totals_.failed_calls;
  totals_.input_tokens += input_tokens;
  totals_.output_tokens += output_tokens;
  totals_.cost_usd += cost_usd;
}

UsageTotals UsageLedger::totals() const {
  std::lock_guard lock(mutex_);
  return totals_;
}

}  // namespace kforge::llm
