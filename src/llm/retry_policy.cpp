#include "llm/retry_policy.h"

#include <algorithm>
#include <cmath>

namespace kforge::llm {

bool RetryPolicy::retryable_status(int http_status) {
  return http_status == 408 || http_status == 429 || (http_status >= 500 && http_status <= 599);
}

std::chrono::milliseconds RetryPolicy::delay_before_retry(
    int failed_attempt, std::optional<std::chrono::milliseconds> retry_after,
    std::mt19937_64& rng) const {
  const double clamped_jitter = std::clamp(jitter, 0.0, 1.0);
  if (retry_after) {
    const double wait = static_cast<double>(std::min(*retry_after, max_retry_after).count());
    std::uniform_real_distribution<double> extra(0.0, clamped_jitter * 0.2);
    return std::chrono::milliseconds(static_cast<long long>(wait * (1.0 + extra(rng))));
  }
  const int exponent = std::clamp(failed_attempt - 1, 0, 30);
  const double backoff = std::min(static_cast<double>(base_delay.count()) * std::ldexp(1.0, exponent),
                                  static_cast<double>(max_delay.count()));
  std::uniform_real_distribution<double> factor(1.0 - clamped_jitter, 1.0 + clamped_jitter);
  return std::chrono::milliseconds(static_cast<long long>(backoff * factor(rng)));
}

}  // namespace kforge::llm
