// What the evolution reports while it runs, so that the search itself never prints. The
// optimize command implements this with its step banners, candidate lines and progress bar
// (src/optimize/console_observer); tests record the events; the default ignores them. Like
// ninja's Status, the observer is injected: Evolution and the LLM operators only call it.
#pragma once

#include <cstddef>
#include <string>

#include "llm/notices.h"
#include "search/operator.h"
#include "store/records.h"

namespace kforge {

struct EvolutionPlan {
  int generations = 0;
  int population = 0;
  std::size_t operators = 0;
};

class EvolutionObserver {
 public:
  virtual ~EvolutionObserver() = default;

  // The original kernel is about to be evaluated (or taken from the store on resume).
  virtual void baseline_started() {}
  // The baseline is known; `from_store`: a resumed run took it from run.db.
  virtual void baseline_ready(const Individual& /*baseline*/, bool /*from_store*/) {}
  virtual void evolution_started(const EvolutionPlan& /*plan*/) {}
  virtual void generation_started(int /*generation*/) {}
  // The operators had nothing new for this generation (it finishes empty).
  virtual void nothing_to_try(int /*generation*/) {}
  // One candidate's result; `index` counts from 1 within its batch of `batch_size`.
  // Generation 0 is the baseline.
  virtual void candidate_evaluated(const Individual& /*candidate*/, std::size_t /*index*/,
                                   std::size_t /*batch_size*/) {}
  // `best`: the run's best so far (null when nothing is correct yet).
  virtual void generation_finished(const GenerationRecord& /*record*/, const Individual* /*best*/) {}
  virtual void stopped(const std::string& /*reason*/) {}

  // A line about the LLM's work (a failed call, a dropped proposal, the budget running out).
  virtual void llm_activity(const std::string& /*line*/) {}
  // The LLM client's own notices (retries, unknown prices, records it could not write).
  virtual void llm_notice(llm::NoticeLevel /*level*/, const std::string& /*text*/) {}
};

// An observer that ignores everything: the default for callers that want a quiet search.
EvolutionObserver& quiet_observer();

}  // namespace kforge
