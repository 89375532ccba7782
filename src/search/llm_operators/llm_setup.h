// Turns `--llm SPEC` (and the budget flags) into the LLM operators of one run, or the one
// line saying why the run uses the built-in operators only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "llm/provider_factory.h"
#include "search/evolution_observer.h"
#include "search/llm_operators/llm_session.h"
#include "search/operator.h"
#include "store/run_store.h"

namespace kforge {

struct LlmOptions {
  std::string spec;                // --llm; empty: $KFORGE_LLM or the first API key set
  double budget_usd = 0;           // --llm-budget-usd; 0: $KFORGE_LLM_MAX_COST_USD or none
  std::int64_t budget_tokens = 0;  // --llm-budget-tokens; 0: $KFORGE_LLM_MAX_TOKENS or none
  LlmSearchSettings search;
  // Hears the session's activity and the LLM client's notices; must outlive the setup.
  EvolutionObserver* observer = &quiet_observer();
};

struct LlmSetup {
  std::vector<std::unique_ptr<Operator>> operators;  // empty: no LLM in this run
  std::shared_ptr<LlmSession> session;               // null: no LLM in this run
  std::string message;                               // one line: which model, or why none
};

// Exchanges go to run.db and to RUN_DIR/exchanges.jsonl (what `--llm replay:RUN_DIR` reads).
// A budget counts what the run already spent, so a resumed run does not start afresh.
LlmSetup setup_llm_operators(const LlmOptions& options, const Task& task, RunStore& store, DeviceFacts device,
                             bool builtins_available, const llm::EnvLookup& env = llm::process_environment());

}  // namespace kforge
