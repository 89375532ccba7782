#include <gtest/gtest.h>

#include "llm/http_client.h"
#include "llm/pricing.h"
#include "llm/retry_policy.h"

namespace kforge::llm {
namespace {

using std::chrono::milliseconds;

TEST(RetryPolicy, RetryableStatuses) {
  for (int status : {408, 429, 500, 502, 503, 504, 529}) EXPECT_TRUE(RetryPolicy::retryable_status(status));
  for (int status : {200, 400, 401, 403, 404, 422}) EXPECT_FALSE(RetryPolicy::retryable_status(status));
}

TEST(RetryPolicy, ExponentialBackoffWithJitterAndCap) {
  RetryPolicy policy;
  policy.base_delay = milliseconds(100);
  policy.max_delay = milliseconds(1000);
  policy.jitter = 0.25;
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 50; ++trial) {
    const auto first = policy.delay_before_retry(1, std::nullopt, rng).count();
    const auto third = policy.delay_before_retry(3, std::nullopt, rng).count();
    const auto tenth = policy.delay_before_retry(10, std::nullopt, rng).count();
    EXPECT_GE(first, 75);
    EXPECT_LE(first, 125);
    EXPECT_GE(third, 300);
    EXPECT_LE(third, 500);
    EXPECT_LE(tenth, 1250);
  }
}

TEST(RetryPolicy, RetryAfterIsAMinimumAndCapped) {
  RetryPolicy policy;
  policy.base_delay = milliseconds(10);
  policy.max_retry_after = milliseconds(5000);
  std::mt19937_64 rng(1);
  const auto honoured = policy.delay_before_retry(1, milliseconds(2000), rng);
  EXPECT_GE(honoured.count(), 2000);
  EXPECT_LE(honoured.count(), 2200);
  EXPECT_LE(policy.delay_before_retry(1, milliseconds(600000), rng).count(), 5500);
}

TEST(RetryPolicy, ParsesRetryAfter) {
  EXPECT_EQ(parse_retry_after("3"), milliseconds(3000));
  EXPECT_EQ(parse_retry_after("0"), milliseconds(0));
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), milliseconds(0));  // in the past
  EXPECT_FALSE(parse_retry_after("soon").has_value());
  EXPECT_FALSE(parse_retry_after("").has_value());
}

TEST(Pricing, LongestPrefixWins) {
  const PriceTable table = PriceTable::with_defaults();
  EXPECT_DOUBLE_EQ(table.find("gpt-4o-mini-2024-07-18")->input_per_mtok, 0.15);
  EXPECT_DOUBLE_EQ(table.find("gpt-4o-2024-08-06")->input_per_mtok, 2.50);
  EXPECT_DOUBLE_EQ(table.find("claude-sonnet-4-20250514")->output_per_mtok, 15.0);
  EXPECT_DOUBLE_EQ(table.find("openai/gpt-4.1-mini")->input_per_mtok, 0.40);
  EXPECT_FALSE(table.find("llama-3-70b").has_value());
  EXPECT_FALSE(table.cost_usd("llama-3-70b", 10, 10).has_value());
  EXPECT_NEAR(*table.cost_usd("gpt-4o", 1000000, 1000000), 12.5, 1e-9);
}

TEST(Pricing, OverridesReplaceAndAdd) {
  const PriceTable table =
      PriceTable::with_defaults({{"gpt-4o", {1, 2}}, {"llama-3", {0.1, 0.2}}});
  EXPECT_DOUBLE_EQ(table.find("gpt-4o")->input_per_mtok, 1);
  EXPECT_DOUBLE_EQ(table.find("llama-3-70b")->output_per_mtok, 0.2);
}

}  // namespace
}  // namespace kforge::llm
