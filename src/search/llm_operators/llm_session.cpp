#include "search/llm_operators/llm_session.h"

#include <fmt/format.h>

#include "search/llm_operators/diagnosis.h"
#include "search/llm_operators/entry_kernel.h"
#include "search/llm_operators/reply_to_source.h"
#include "util/files.h"

namespace kforge {
namespace {

constexpr std::size_t kMaxAnalysisChars = 1500;

std::string trimmed(std::string text) {
  text.erase(0, text.find_first_not_of(" \t\r\n"));
  while (!text.empty() && std::string(" \t\r\n").find(text.back()) != std::string::npos) text.pop_back();
  return text;
}

}  // namespace

LlmSession::LlmSession(std::unique_ptr<llm::LlmProvider> provider, std::shared_ptr<StoreExchangeSink> sink,
                       RunStore& store, const Task& task, DeviceFacts device, LlmSearchSettings settings)
    : provider_(std::move(provider)),
      sink_(std::move(sink)),
      store_(store),
      task_(task),
      device_(std::move(device)),
      settings_(settings) {
  try {
    original_entry_ = find_entry_kernel(read_file(task_.kernel.source), task_);
  } catch (const std::exception&) {
    // Without the original's signature the check below is skipped; the evaluator still
    // rejects a kernel it cannot launch.
  }
  system_prompt_ = system_prompt(task_, original_entry_ ? signature_text(*original_entry_) : task_.kernel.kernel);
}

std::string LlmSession::describe() const { return provider_->name() + ":" + provider_->model(); }

void LlmSession::mark_exhausted(const std::string& reason) {
  if (exhausted_) return;
  exhausted_ = true;
  const std::string line = builtins_available_ ? "LLM budget exhausted: continuing with built-in operators"
                                               : "LLM budget exhausted: no other operators, the search stops";
  observer_->llm_activity(line);
  store_.add_event(line + " (" + reason + ")");
}

PromptInputs LlmSession::prompt_inputs(const OperatorContext& context) const {
  return PromptInputs{task_, device_, context.history, dropped_, settings_.max_ancestors, settings_.max_failures};
}

llm::LlmRequest LlmSession::request_for(const std::string& purpose, const std::string& system,
                                        const std::string& prompt) const {
  llm::LlmRequest request;
  request.system = system;
  request.messages.push_back({"user", prompt});
  request.max_tokens = settings_.max_reply_tokens;
  request.temperature = settings_.temperature;
  request.purpose = purpose;
  request.candidate_id = sink_->make_pending_token();
  return request;
}

std::optional<llm::LlmResponse> LlmSession::call(const std::string& operator_name, llm::LlmRequest& request,
                                                 std::optional<std::int64_t> about) {
  if (exhausted_) return std::nullopt;
  llm::LlmResponse response = provider_->complete(request);
  if (response.budget_exhausted) {
    sink_->settle(request.candidate_id, about);
    mark_exhausted(response.error);
    return std::nullopt;
  }
  if (!response.ok()) {
    sink_->settle(request.candidate_id, about);
    const std::string line = fmt::format("{}: the LLM call failed: {}", operator_name, one_line(response.error, 200));
    observer_->llm_activity(line);
    store_.add_event(line);
    return std::nullopt;
  }
  return response;
}

void LlmSession::drop(const std::string& operator_name, const std::string& strategy, const std::string& problem) {
  ++failed_proposals_;
  const std::string what = strategy.empty() ? operator_name : fmt::format("{} \"{}\"", operator_name, strategy);
  dropped_.push_back(fmt::format("{} (never evaluated): {}", what, one_line(problem, 200)));
  const std::string line = fmt::format("{}: proposal dropped: {}", what, one_line(problem, 200));
  observer_->llm_activity(line);
  store_.add_event(line);
}

std::string LlmSession::diagnosis_for(const OperatorContext& context, const Individual& candidate) {
  if (const auto found = diagnoses_.find(candidate.id); found != diagnoses_.end()) return found->second;
  const auto record = store_.get_candidate(candidate.id);
  if (record && !record->analysis.empty()) return diagnoses_[candidate.id] = record->analysis;

  DiagnosisFacts facts;
  facts.median_ms = candidate.median_ms.value_or(0);
  if (record) facts.achieved_gbps = record->metrics.gbps;
  facts.copy_gbps = device_.copy_gbps;
  facts.compile_stats = candidate.compile_stats;
  facts.profile = candidate.profile;
  const std::string measured = measured_diagnosis(facts);

  std::string analysis = "measured:\n" + measured;
  llm::LlmRequest request =
      request_for("analyze", analysis_system_prompt(), analyze_prompt(prompt_inputs(context), candidate, measured));
  if (const auto response = call("llm-analyze", request, candidate.id)) {
    const std::string garbled = llm::detect_garbled(response->text);
    sink_->settle(request.candidate_id, candidate.id, garbled.empty() ? "" : "garbled");
    if (garbled.empty()) {
      std::string text = trimmed(response->text);
      if (text.size() > kMaxAnalysisChars) text = text.substr(0, kMaxAnalysisChars) + " [...]";
      analysis = text + "\n\n" + analysis;
    } else {
      store_.add_event(fmt::format("llm-analyze: garbled analysis of #{} ({}); using the measurements alone",
                                   candidate.id, garbled));
    }
  }
  store_.set_candidate_analysis(candidate.id, analysis);
  return diagnoses_[candidate.id] = analysis;
}

std::optional<std::string> LlmSession::ask_text(const std::string& operator_name, const std::string& purpose,
                                                const std::string& prompt, std::int64_t about) {
  llm::LlmRequest request = request_for(purpose, system_prompt_, prompt);
  const auto response = call(operator_name, request, about);
  if (!response) return std::nullopt;
  const std::string garbled = llm::detect_garbled(response->text);
  sink_->settle(request.candidate_id, about, garbled.empty() ? "" : "garbled");
  if (!garbled.empty()) {
    drop(operator_name, "", "garbled reply: " + garbled);
    return std::nullopt;
  }
  return response->text;
}

std::optional<Proposal> LlmSession::propose(const ProposalRequest& wanted, OperatorContext& context) {
  llm::LlmRequest request = request_for(wanted.purpose, system_prompt_, wanted.prompt);
  const std::optional<std::int64_t> about =
      wanted.parent_ids.empty() ? std::nullopt : std::optional(wanted.parent_ids.front());
  auto response = call(wanted.operator_name, request, about);
  if (!response) return std::nullopt;
  llm::ParsedReply reply = llm::parse_reply(response->text);
  ReplySource made = source_from_reply(reply, wanted.base.source);

  if (made.kind == ReplySource::Kind::EditsFailed) {
    // One follow-up turn in the same conversation: the model sees exactly which blocks failed.
    request.messages.push_back({"assistant", response->text});
    request.messages.push_back({"user", edit_retry_prompt(made.edit_failures, reply.edits)});
    request.purpose = wanted.purpose + "-retry";
    response = call(wanted.operator_name, request, about);
    if (!response) return std::nullopt;
    llm::ParsedReply retry = llm::parse_reply(response->text);
    if (retry.strategy.empty()) retry.strategy = reply.strategy;
    if (retry.rationale.empty()) retry.rationale = reply.rationale;
    reply = std::move(retry);
    made = source_from_reply(reply, wanted.base.source);
    if (made.kind == ReplySource::Kind::EditsFailed) made.problem = "after a follow-up turn, " + made.problem;
  }
  const std::string strategy = reply.strategy.empty() ? wanted.fallback_strategy : reply.strategy;
  std::string problem = made.problem;
  std::string outcome = outcome_name(made.kind);
  if (made.ok() && original_entry_) {
    problem = entry_kernel_problem(made.source, task_, original_entry_->params.size());
    if (!problem.empty()) outcome = "rejected";
  }
  if (problem.empty() && made.source == wanted.base.source) {
    problem = "the reply repeats the current source unchanged";
    outcome = "unchanged";
  }
  KernelVariant variant = wanted.base;
  variant.source = made.source;
  if (problem.empty() && context.already_seen && context.already_seen(variant)) {
    problem = "the reply repeats an earlier candidate";
    outcome = "duplicate";
  }
  if (!problem.empty()) {
    sink_->settle(request.candidate_id, about, outcome);
    drop(wanted.operator_name, strategy, problem);
    return std::nullopt;
  }

  Proposal proposal;
  proposal.variant = std::move(variant);
  proposal.parent_ids = wanted.parent_ids;
  proposal.operator_name = wanted.operator_name;
  proposal.strategy = strategy;
  proposal.rationale = reply.rationale;
  proposal.on_stored = [sink = sink_, token = request.candidate_id, about](std::optional<std::int64_t> id) {
    sink->settle(token, id ? id : about, id ? "" : "duplicate");
  };
  return proposal;
}

}  // namespace kforge
