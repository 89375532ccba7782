// When to retry a failed HTTP attempt and how long to wait first.
#pragma once

#include <chrono>
#include <optional>
#include <random>

namespace kforge::llm {

struct RetryPolicy {
  int max_attempts = 4;  // total attempts, first one included
  std::chrono::milliseconds base_delay{1000};  // wait after the first failure; doubles each time
  std::chrono::milliseconds max_delay{30000};  // cap of the exponential back-off
  // A server asking for longer than this is not waited for beyond it: a stuck search is worse
  // than one more failed call.
  std::chrono::milliseconds max_retry_after{120000};
  double jitter = 0.25;  // back-off is scaled by a random factor in [1 - jitter, 1 + jitter]

  // Rate limits (429), request timeouts (408) and server-side failures (5xx, including
  // Anthropic's 529 "overloaded") are transient; other 4xx mean the request itself is wrong.
  static bool retryable_status(int http_status);

  // Wait before attempt `failed_attempt + 1`. A Retry-After from the server is honoured as a
  // minimum (plus a little jitter so parallel clients do not return in lock-step).
  std::chrono::milliseconds delay_before_retry(int failed_attempt,
                                               std::optional<std::chrono::milliseconds> retry_after,
                                               std::mt19937_64& rng) const;
};

}  // namespace kforge::llm
