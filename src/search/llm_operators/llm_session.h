// What the LLM operators share in one run: the provider, where exchanges are recorded, the
// device facts, the diagnosis cache, the list of proposals that never became candidates, and
// the budget state. One conversation per proposal: the request, and when its edit blocks do
// not apply, one follow-up turn listing the failures.
//
// Not thread-safe: the search asks its operators for proposals from one thread.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "llm/provider.h"
#include "search/evolution_observer.h"
#include "search/llm_operators/prompt_builder.h"
#include "task/detect.h"
#include "search/llm_operators/store_exchange_sink.h"
#include "search/operator.h"
#include "store/run_store.h"

namespace kforge {

struct LlmSearchSettings {
  int reflect_rounds = 2;            // repairs along one failing lineage before giving up on it
  int idea_branching = 4;            // ideas asked for in one idea round
  double idea_keep_pct = 50;         // share of them implemented (the model lists best first)
  int implementations_per_idea = 1;  // implementations asked for per kept idea
  int max_reply_tokens = 8192;
  double temperature = 0.7;
  int max_ancestors = 5;             // shown in each prompt
  int max_failures = 8;              // shown in each prompt
};

// One proposal's conversation, as an operator describes it.
struct ProposalRequest {
  std::string operator_name;  // "llm-mutate"
  std::string purpose;        // "mutate": what replay matches on
  std::string prompt;         // the user message
  KernelVariant base;         // the source edits apply to; params and options carry over
  std::vector<std::int64_t> parent_ids;
  std::string fallback_strategy;  // when the model names none
};

class LlmSession {
 public:
  LlmSession(std::unique_ptr<llm::LlmProvider> provider, std::shared_ptr<StoreExchangeSink> sink, RunStore& store,
             const Task& task, DeviceFacts device, LlmSearchSettings settings);

  const Task& task() const { return task_; }
  const LlmSearchSettings& settings() const { return settings_; }
  llm::LlmProvider& provider() { return *provider_; }
  std::string describe() const;  // "openai:gpt-4.1"

  // Whether there are non-LLM operators to continue with once the budget is spent.
  void set_builtins_available(bool available) { builtins_available_ = available; }
  // Where the session's lines go (a failed call, a dropped proposal, the budget running out);
  // the observer must outlive the session.
  void set_observer(EvolutionObserver& observer) { observer_ = &observer; }
  // Marks the budget as spent before any call (a resumed run that already used it up).
  void mark_exhausted(const std::string& reason);
  bool exhausted() const { return exhausted_; }

  PromptInputs prompt_inputs(const OperatorContext& context) const;

  // The candidate's bottleneck diagnosis: stored already, or the model's analysis of the
  // measured facts (just the facts when the model gives none), then kept with the candidate.
  std::string diagnosis_for(const OperatorContext& context, const Individual& candidate);

  // Asks for a new kernel and turns the reply into a proposal; nullopt (after recording why
  // in the event log) when the reply gave none.
  std::optional<Proposal> propose(const ProposalRequest& request, OperatorContext& context);

  // A call whose reply is plain text (the idea list). `about`: the candidate it concerns.
  std::optional<std::string> ask_text(const std::string& operator_name, const std::string& purpose,
                                      const std::string& prompt, std::int64_t about);

  // Records a proposal that never became a candidate: event log, console, and the
  // "tried and failed" list of later prompts.
  void drop(const std::string& operator_name, const std::string& strategy, const std::string& problem);
  const std::vector<std::string>& dropped() const { return dropped_; }
  // Each failure gets one repair attempt from this session, even when that attempt produced
  // no proposal: a claimed failure is not offered again.
  void claim_repair(std::int64_t failed_id) { repairs_claimed_.insert(failed_id); }
  bool repair_claimed(std::int64_t failed_id) const { return repairs_claimed_.count(failed_id) > 0; }
  int failed_proposals() const { return failed_proposals_; }

 private:
  // One call; nullopt (and the exchange settled) when it failed or the budget is spent.
  std::optional<llm::LlmResponse> call(const std::string& operator_name, llm::LlmRequest& request,
                                       std::optional<std::int64_t> about);
  llm::LlmRequest request_for(const std::string& purpose, const std::string& system, const std::string& prompt) const;

  std::unique_ptr<llm::LlmProvider> provider_;
  std::shared_ptr<StoreExchangeSink> sink_;
  RunStore& store_;
  const Task& task_;
  DeviceFacts device_;
  LlmSearchSettings settings_;
  std::optional<DetectedKernel> original_entry_;  // null when the original cannot be parsed
  std::string system_prompt_;
  std::map<std::int64_t, std::string> diagnoses_;
  std::vector<std::string> dropped_;
  std::set<std::int64_t> repairs_claimed_;
  int failed_proposals_ = 0;
  bool builtins_available_ = true;
  EvolutionObserver* observer_ = &quiet_observer();
  bool exhausted_ = false;
};

}  // namespace kforge
