// The console face of a run: turns the evolution's events into the lines `kforge optimize`
// prints (the baseline and evolve banners, one line per candidate, the progress bar, one line
// per generation, the stop reason, the LLM's activity and the LLM client's notices).
#pragma once

#include "search/evolution_observer.h"

namespace kforge::optimize {

class ConsoleObserver : public EvolutionObserver {
 public:
  void baseline_started() override;
  void baseline_ready(const Individual& baseline, bool from_store) override;
  void evolution_started(const EvolutionPlan& plan) override;
  void nothing_to_try(int generation) override;
  void candidate_evaluated(const Individual& candidate, std::size_t index, std::size_t batch_size) override;
  void generation_finished(const GenerationRecord& record, const Individual* best) override;
  void stopped(const std::string& reason) override;
  void llm_activity(const std::string& line) override;
  void llm_notice(llm::NoticeLevel level, const std::string& text) override;
};

}  // namespace kforge::optimize
