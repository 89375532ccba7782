// The seam between the search and a language model. Implementations never throw out of
// complete(): every failure comes back as an LlmResponse with `error` set, so a bad reply can
// cost a candidate but never the run.
#pragma once

#include <string>

#include "llm/types.h"
#include "llm/usage_ledger.h"

namespace kforge::llm {

class LlmProvider {
 public:
  virtual ~LlmProvider() = default;

  // Thread-safe; may block for the concurrency limit, the network and retry back-off.
  virtual LlmResponse complete(const LlmRequest& request) = 0;

  virtual std::string name() const = 0;   // "openai", "anthropic", "replay"
  virtual std::string model() const = 0;  // model id, or the replayed file for replay
  // Cumulative tokens and cost of all calls made through this provider so far.
  virtual UsageTotals usage() const = 0;
};

}  // namespace kforge::llm
