// Keys of evaluation metrics that several modules write or read back (eval, search, store,
// report, CLI): spelled once, here, in the base module every other one includes.
#pragma once

namespace kforge::metric_keys {
inline constexpr const char* kSpeedup = "speedup";                  // median of paired ratios
inline constexpr const char* kSpeedupCiLow = "speedup_ci_low";      // 95% CI of that median
inline constexpr const char* kSpeedupCiHigh = "speedup_ci_high";
inline constexpr const char* kSpeedupRounds = "speedup_rounds";     // paired rounds behind it
inline constexpr const char* kSpeedupSignificant = "speedup_significant";  // ci_low > 1
inline constexpr const char* kMedianCiLowMs = "ci_low_ms";          // in a timing object
inline constexpr const char* kMedianCiHighMs = "ci_high_ms";
}  // namespace kforge::metric_keys
