// The words kforge says to the model. Every prompt is built from the same sections (task and
// device, diagnosis, current source, best ancestors by latency, what failed before), so the
// model always knows what it must keep, what has worked and what not to repeat.
//
// Each user prompt starts with a "# <title>" line naming the request (a test server, a human
// reading `kforge show --llm`, and replay all rely on requests being recognisable).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "llm/reply_parser.h"
#include "search/operator.h"

namespace kforge {

struct DeviceFacts {
  std::string name;
  nlohmann::json info;  // what the worker reports about its device (name, arch, memory, ...)
  double copy_gbps = 0;
};

struct PromptInputs {
  const Task& task;
  const DeviceFacts& device;
  const std::vector<Individual>& history;  // best first, failures last (OperatorContext::history)
  // Proposals that never became candidates (garbled replies, edits that did not apply, a
  // changed kernel signature), newest last, one line each.
  const std::vector<std::string>& dropped;
  int max_ancestors = 5;
  int max_failures = 8;
};

// `entry_signature`: the entry kernel as the original declares it ("vector_add(float* a, ...)").
std::string system_prompt(const Task& task, const std::string& entry_signature);
std::string analysis_system_prompt();

// Correct candidates among the parents' lineages and the best of the run, fastest first.
std::vector<const Individual*> best_ancestors(const std::vector<Individual>& history,
                                              const std::vector<std::int64_t>& parent_ids, int limit);
// Failed candidates, newest first, then the dropped proposals; one line each.
std::vector<std::string> failure_lines(const std::vector<Individual>& history, const std::vector<std::string>& dropped,
                                       int limit);

std::string analyze_prompt(const PromptInputs& in, const Individual& candidate, const std::string& measured);
std::string generate_prompt(const PromptInputs& in, const Individual& base, const std::string& diagnosis);
std::string mutate_prompt(const PromptInputs& in, const Individual& parent, const std::string& diagnosis);
std::string crossover_prompt(const PromptInputs& in, const Individual& a, const Individual& b);
// `parent` (may be null) is the correct kernel the failed one was derived from.
std::string reflect_prompt(const PromptInputs& in, const Individual& failed, const Individual* parent);
std::string ideas_prompt(const PromptInputs& in, const Individual& parent, const std::string& diagnosis, int count);
std::string implement_prompt(const PromptInputs& in, const Individual& parent, const std::string& diagnosis,
                             const std::string& idea);
// The follow-up turn after edit blocks that did not apply to `source`.
std::string edit_retry_prompt(const std::vector<llm::EditFailure>& failures, const std::vector<llm::EditBlock>& edits);

// The fence tag for the task's language ("cuda", "opencl", "python").
std::string fence_language(Language language);
// The first line of a message, at most `width` characters: errors shown one per line.
std::string one_line(const std::string& text, std::size_t width = 160);

}  // namespace kforge
