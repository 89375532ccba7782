// The final-verification step of `kforge optimize`, which has the last word. The
// search's fastest candidates are re-checked with more seeds, timed against the original on
// every size, and re-checked after timing; a candidate that fails any of it becomes
// `incorrect` with the reason and the next one takes its place. Only a candidate whose
// speedup interval on the timing size lies above 1 is an improvement; otherwise the original
// stays the best ("no improvement found").
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "store/run_store.h"

namespace kforge::optimize {

struct FinalVerdict {
  std::optional<std::int64_t> best_id;  // verified and measurably faster; empty: no improvement
  std::vector<SizeResult> sizes;        // per-size timings of the verified best
  double speedup = 0;                   // on the timing size
  double speedup_low = 0;               // ~95% interval of that speedup
  double speedup_high = 0;
  double search_speedup = 0;            // what the search had measured for it
  int rejected = 0;                     // candidates that failed the final verification
};

// Verifies up to `max_candidates` of the fastest correct candidates, fastest first, and records
// the verdict in the store (statuses, the best's per-size metrics, kVerifiedBestSetting).
FinalVerdict verify_final(Evaluator& evaluator, RunStore& store, std::int64_t baseline_id, int seeds,
                          int max_candidates = 4);

}  // namespace kforge::optimize
