#include "search/llm_operators/llm_setup.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "llm/jsonl_exchange_sink.h"
#include "search/llm_operators/fanout_exchange_sink.h"
#include "search/llm_operators/llm_operators.h"

namespace kforge {
namespace {

double env_number(const llm::EnvLookup& env, const std::string& name) {
  const auto value = env(name);
  if (!value) return 0;
  try {
    return std::stod(*value);
  } catch (const std::exception&) {
    return 0;  // the provider factory reports the malformed value itself
  }
}

struct Budget {
  double usd = 0;             // limit left for this session; meaningful when usd_limited
  double tokens = 0;
  bool usd_limited = false;
  bool tokens_limited = false;
  std::string spent_reason;   // non-empty: nothing is left
};

// The limits minus what earlier sessions of this run spent (a resumed run).
Budget remaining_budget(const LlmOptions& options, const llm::EnvLookup& env, const LlmTotals& spent) {
  Budget budget;
  const double usd = options.budget_usd > 0 ? options.budget_usd : env_number(env, "KFORGE_LLM_MAX_COST_USD");
  const double tokens = options.budget_tokens > 0 ? static_cast<double>(options.budget_tokens)
                                                  : env_number(env, "KFORGE_LLM_MAX_TOKENS");
  budget.usd_limited = usd > 0;
  budget.tokens_limited = tokens > 0;
  budget.usd = usd - spent.cost_usd;
  budget.tokens = tokens - static_cast<double>(spent.input_tokens + spent.output_tokens);
  if (budget.usd_limited && budget.usd <= 0)
    budget.spent_reason = fmt::format("${:.4f} of ${:.4f} spent", spent.cost_usd, usd);
  if (budget.tokens_limited && budget.tokens <= 0)
    budget.spent_reason = fmt::format("{} of {:.0f} tokens spent", spent.input_tokens + spent.output_tokens, tokens);
  return budget;
}

// What is left of the budget, as the provider's limits (0: the dimension is not limited). A
// spent dimension still gets a tiny positive limit, so the provider refuses every call too.
llm::BudgetLimits provider_limits(const Budget& budget) {
  llm::BudgetLimits limits;
  if (budget.usd_limited) limits.max_cost_usd = std::max(budget.usd, 1e-9);
  if (budget.tokens_limited) limits.max_total_tokens = std::llround(std::max(budget.tokens, 1.0));
  return limits;
}

}  // namespace

LlmSetup setup_llm_operators(const LlmOptions& options, const Task& task, RunStore& store, DeviceFacts device,
                             bool builtins_available, const llm::EnvLookup& env) {
  LlmSetup setup;
  const Budget budget = remaining_budget(options, env, store.llm_totals());
  EvolutionObserver* observer = options.observer ? options.observer : &quiet_observer();
  const llm::NoticeFn notices = [observer](llm::NoticeLevel level, const std::string& text) {
    observer->llm_notice(level, text);
  };
  auto store_sink = std::make_shared<StoreExchangeSink>(store, notices);
  std::shared_ptr<llm::ExchangeSink> jsonl_sink;
  try {
    jsonl_sink = std::make_shared<llm::JsonlExchangeSink>(store.run_dir() / "exchanges.jsonl");
  } catch (const std::exception& e) {
    setup.message = std::string("LLM off: cannot record its exchanges: ") + e.what();
    return setup;
  }
  auto sink = std::make_shared<FanoutExchangeSink>(std::vector<std::shared_ptr<llm::ExchangeSink>>{store_sink, jsonl_sink},
                                                   notices);
  llm::ProviderSelection selection = llm::select_provider(options.spec, env, sink, provider_limits(budget));
  if (!selection) {
    const bool says_so = selection.reason.find("built-in") != std::string::npos;
    setup.message = selection.reason + (says_so ? "" : "; using the built-in operators only");
    return setup;
  }
  setup.session = std::make_shared<LlmSession>(std::move(selection.provider), store_sink, store, task,
                                               std::move(device), options.search);
  setup.session->set_builtins_available(builtins_available);
  setup.session->set_observer(*observer);
  if (!budget.spent_reason.empty()) setup.session->mark_exhausted(budget.spent_reason);
  setup.operators = make_llm_operators(setup.session);
  std::string names;
  for (const auto& op : setup.operators) names += (names.empty() ? "" : ", ") + op->name();
  setup.message = fmt::format("LLM {} drives {}", setup.session->describe(), names);
  return setup;
}

}  // namespace kforge
