// Token and cost accounting shared by all calls of one client, and the budget that stops a
// run cleanly once it is spent.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

namespace kforge::llm {

struct UsageTotals {
  std::int64_t calls = 0;         // complete() calls that reached the network
  std::int64_t failed_calls = 0;  // of those, how many ended in an error
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  double cost_usd = 0;

  std::int64_t total_tokens() const { return input_tokens + output_tokens; }
};

// Zero means unlimited.
struct BudgetLimits {
  std::int64_t max_total_tokens = 0;
  double max_cost_usd = 0;

  bool unlimited() const { return max_total_tokens <= 0 && max_cost_usd <= 0; }
};

class UsageLedger {
 public:
  explicit UsageLedger(BudgetLimits limits = {}) : limits_(limits) {}

  // Why no further call may start, or nullopt while budget remains. Calls already in flight
  // when the budget runs out still finish, so the totals may overshoot by up to one call per
  // concurrent slot; checking before a call (not reserving) keeps the ledger simple.
  std::optional<std::string> exhausted_reason() const;

  void record(std::int64_t input_tokens, std::int64_t output_tokens, double cost_usd, bool failed);
  UsageTotals totals() const;
  const BudgetLimits& limits() const { return limits_; }

 private:
  BudgetLimits limits_;
  mutable std::mutex mutex_;
  UsageTotals totals_;
};

}  // namespace kforge::llm
