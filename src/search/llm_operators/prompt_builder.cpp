#include "search/llm_operators/prompt_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "search/llm_operators/line_change.h"
#include "search/llm_operators/python_prompts.h"

namespace kforge {
namespace {

const char* kAnswerFormat = R"(Answer format:
STRATEGY: <a short name for what you changed, at most 8 words>
RATIONALE: <one paragraph: why it is correct and why it should be faster on this device>
then EITHER the complete kernel file in ONE fenced ```{lang} block,
OR one or more edit blocks against the current source, each of the form
<<<<<<< SEARCH
exact, contiguous lines copied from the current source
=======
the lines to put there instead
>>>>>>> REPLACE
Do not mix the two forms, and put no other code blocks in the answer.)";

std::string params_text(const ParamValues& params) {
  std::string text;
  for (const auto& [name, value] : params) text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, value);
  return text.empty() ? "none" : text;
}

std::string latency_text(const Individual& individual) {
  return individual.median_ms ? fmt::format("{:.4f} ms, {:.2f}x", *individual.median_ms, individual.speedup)
                              : "not measured";
}

std::string label(const Individual& individual) {
  return fmt::format("#{} {}{}", individual.id, individual.operator_name,
                     individual.strategy.empty() ? "" : " \"" + individual.strategy + "\"");
}

std::string code_block(Language language, const std::string& source) {
  std::string text = "```" + fence_language(language) + "\n" + source;
  if (!source.empty() && source.back() != '\n') text += "\n";
  return text + "```\n";
}

std::string source_section(const Task& task, const std::string& title, const Individual& candidate) {
  return fmt::format("## {} ({}; params {})\n{}\n", title, label(candidate), params_text(candidate.variant.params),
                     code_block(task.kernel.language, candidate.variant.source));
}

std::string device_text(const DeviceFacts& device) {
  std::string text = "## Device\n" + (device.name.empty() ? std::string("unknown") : device.name) + "\n";
  if (device.copy_gbps > 0) text += fmt::format("measured copy bandwidth: {:.1f} GB/s\n", device.copy_gbps);
  if (device.info.is_object())
    for (const auto& [key, value] : device.info.items())
      if (key != "name" && value.is_primitive()) text += fmt::format("{}: {}\n", key, value.dump());
  return text;
}

std::string task_text(const Task& task) {
  std::string text = fmt::format("## Task {}\n", task.name);
  if (!task.description.empty()) text += task.description + "\n";
  text += fmt::format("language: {}; entry kernel: {}\n", to_string(task.kernel.language), task.kernel.kernel);
  text += "arguments:\n";
  for (const auto& arg : task.args) {
    const std::string shape = arg.shape.empty() ? "" : fmt::format(" [{}]", fmt::join(arg.shape, ", "));
    const std::string value = arg.value.empty() ? "" : " = " + arg.value;
    text += fmt::format("  {} {} {}{}{}\n", arg.name, to_string(arg.dtype), to_string(arg.role), shape, value);
  }
  std::string sizes;
  for (const auto& size : task.sizes) {
    std::string vars;
    for (const auto& [name, value] : size.vars) vars += fmt::format("{}{}={}", vars.empty() ? "" : ",", name, value);
    sizes += fmt::format("{}{} ({})", sizes.empty() ? "" : "; ", size.name, vars);
  }
  text += "problem sizes (the first is timed, all are checked): " + sizes + "\n";
  return text;
}

std::string ancestors_text(const PromptInputs& in, const std::vector<std::int64_t>& parent_ids) {
  const auto ancestors = best_ancestors(in.history, parent_ids, in.max_ancestors);
  if (ancestors.empty()) return "";
  std::string text = "## Best kernels so far (fastest first)\n";
  for (const Individual* individual : ancestors)
    text += fmt::format("- {}: {}\n", label(*individual), latency_text(*individual));
  return text + "\n";
}

std::string failures_text(const PromptInputs& in) {
  const auto lines = failure_lines(in.history, in.dropped, in.max_failures);
  if (lines.empty()) return "";
  std::string text = "## Tried and failed (do not repeat these)\n";
  for (const auto& line : lines) text += "- " + line + "\n";
  return text + "\n";
}

std::string context_text(const PromptInputs& in, const std::vector<std::int64_t>& parent_ids) {
  return task_text(in.task) + "\n" + device_text(in.device) + "\n" + ancestors_text(in, parent_ids) + failures_text(in);
}

std::string diagnosis_text(const std::string& diagnosis) {
  return diagnosis.empty() ? "" : "## Diagnosis\n" + diagnosis + (diagnosis.back() == '\n' ? "" : "\n") + "\n";
}

const Individual* find(const std::vector<Individual>& history, std::int64_t id) {
  for (const auto& individual : history)
    if (individual.id == id) return &individual;
  return nullptr;
}

}  // namespace

std::string fence_language(Language language) { return language_facts(language).code_fence; }

std::string one_line(const std::string& text, std::size_t width) {
  std::string line;
  for (std::size_t start = 0; start < text.size() && line.empty();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    line = text.substr(start, end - start);
    line.erase(0, line.find_first_not_of(" \t\r"));
    start = end + 1;
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
  return line.size() > width ? line.substr(0, width - 3) + "..." : line;
}

std::string system_prompt(const Task& task, const std::string& entry_signature) {
  std::string tunables;
  for (const auto& param : task.params)
    tunables += fmt::format("   - {} in {{{}}} (default {})\n", param.name, fmt::join(param.values, ", "),
                            param.default_value);
  if (tunables.empty()) tunables = "   (this task has none)\n";
  // Triton and KernelBench tasks have a harness of their own (python/kforge_worker.py).
  if (std::string python_rules = python_task_rules(task, entry_signature); !python_rules.empty())
    return python_rules + fmt::format(fmt::runtime(kAnswerFormat), fmt::arg("lang", fence_language(task.kernel.language))) + "\n";
  std::string rules = fmt::format(
      "You are an expert GPU performance engineer working inside kforge, an automatic kernel optimizer. You improve "
      "one {} kernel. kforge owns the harness: it creates the inputs, runs the reference, checks your kernel's output "
      "on every problem size and times it. You only write kernel source.\n\n"
      "Rules:\n"
      "1. Keep the entry kernel {} with exactly these parameters in this order; kforge binds the arguments itself. "
      "Helper functions and macros are fine.\n"
      "2. The launch geometry is fixed by kforge: grid = ({}) work-groups/blocks of ({}) threads. The kernel must "
      "compute every output element for every problem size under that geometry (bounds checks, grid-stride loops).\n"
      "3. Tunable parameters arrive as -D compile definitions; keep an `#ifndef NAME` / `#define NAME <default>` / "
      "`#endif` fallback for each so the file also compiles alone. You may use them but not rename them:\n{}"
      "4. Results must match the reference within the task's tolerance on every size.\n"
      "5. Never time, allocate, or launch anything yourself; no host code.\n\n",
      to_string(task.kernel.language), entry_signature, fmt::join(task.launch.grid, ", "),
      fmt::join(task.launch.block, ", "), tunables);
  return rules + fmt::format(fmt::runtime(kAnswerFormat), fmt::arg("lang", fence_language(task.kernel.language))) + "\n";
}

std::string analysis_system_prompt() {
  return "You are an expert GPU performance engineer. Given a kernel, its measurements and the device, name the main "
         "bottleneck and the most promising way to remove it. Answer in at most 6 short lines of plain text, no code.";
}

std::vector<const Individual*> best_ancestors(const std::vector<Individual>& history,
                                              const std::vector<std::int64_t>& parent_ids, int limit) {
  std::vector<const Individual*> chosen;
  std::set<std::int64_t> seen;
  const auto take = [&](const Individual* individual) {
    if (individual && individual->median_ms && seen.insert(individual->id).second) chosen.push_back(individual);
  };
  // Each parent's lineage (following first parents) says how this kernel came to be ...
  for (const std::int64_t parent_id : parent_ids) {
    std::set<std::int64_t> visited;
    for (const Individual* at = find(history, parent_id); at && visited.insert(at->id).second;
         at = at->parent_ids.empty() ? nullptr : find(history, at->parent_ids.front()))
      take(at);
  }
  // ... and the run's best say what has worked anywhere.
  for (const auto& individual : history) take(&individual);
  std::stable_sort(chosen.begin(), chosen.end(), [](const Individual* a, const Individual* b) {
    return *a->median_ms < *b->median_ms || (*a->median_ms == *b->median_ms && a->id < b->id);
  });
  if (limit >= 0 && chosen.size() > static_cast<std::size_t>(limit)) chosen.resize(static_cast<std::size_t>(limit));
  return chosen;
}

std::vector<std::string> failure_lines(const std::vector<Individual>& history, const std::vector<std::string>& dropped,
                                       int limit) {
  std::vector<const Individual*> failed;
  for (const auto& individual : history)
    if (is_failure(individual.status))
      failed.push_back(&individual);
  std::sort(failed.begin(), failed.end(), [](const Individual* a, const Individual* b) { return a->id > b->id; });
  std::vector<std::string> lines;
  for (const Individual* individual : failed)
    lines.push_back(fmt::format("{}: {}: {}", label(*individual), to_string(individual->status),
                                one_line(individual->status_message)));
  for (auto it = dropped.rbegin(); it != dropped.rend(); ++it) lines.push_back(*it);
  if (limit >= 0 && lines.size() > static_cast<std::size_t>(limit)) lines.resize(static_cast<std::size_t>(limit));
  return lines;
}

std::string analyze_prompt(const PromptInputs& in, const Individual& candidate, const std::string& measured) {
  return "# Diagnose the bottleneck\n\n" + task_text(in.task) + "\n" + device_text(in.device) + "\n" +
         source_section(in.task, "Kernel", candidate) + "## Measurements\n" + measured + "\n" +
         "What limits this kernel on this device, and what single change would help most?\n";
}

std::string generate_prompt(const PromptInputs& in, const Individual& base, const std::string& diagnosis) {
  return "# Write a faster kernel\n\n" + context_text(in, {base.id}) + diagnosis_text(diagnosis) +
         source_section(in.task, "Current source", base) +
         "Write a new version of this kernel that removes the bottleneck named in the diagnosis. A substantially "
         "different approach is welcome.\n";
}

std::string mutate_prompt(const PromptInputs& in, const Individual& parent, const std::string& diagnosis) {
  return "# Mutate: one focused change\n\n" + context_text(in, {parent.id}) + diagnosis_text(diagnosis) +
         source_section(in.task, "Current source", parent) +
         "Make ONE focused change to this kernel that should make it faster, keeping everything else as it is. "
         "Edit blocks are preferred for small changes.\n";
}

std::string crossover_prompt(const PromptInputs& in, const Individual& a, const Individual& b) {
  return "# Crossover: combine two kernels\n\n" + context_text(in, {a.id, b.id}) +
         source_section(in.task, "Current source (kernel A)", a) + source_section(in.task, "Kernel B", b) +
         "Combine the strengths of kernel A and kernel B into one kernel that is faster than both. Edit blocks, if "
         "you use them, apply to kernel A.\n";
}

std::string reflect_prompt(const PromptInputs& in, const Individual& failed, const Individual* parent) {
  std::string text = "# Repair a failed kernel\n\n" + context_text(in, parent ? std::vector{parent->id}
                                                                            : std::vector<std::int64_t>{});
  text += fmt::format("## What failed\n{} failed: {}\n{}\n", label(failed), to_string(failed.status),
                      failed.status_message);
  if (!failed.compile_log.empty()) {
    const std::string log = failed.compile_log.size() > 3000 ? failed.compile_log.substr(0, 3000) + "\n[...]"
                                                             : failed.compile_log;
    text += "compiler output:\n```\n" + log + (log.back() == '\n' ? "" : "\n") + "```\n";
  }
  if (parent) {
    const std::string change = changed_region(parent->variant.source, failed.variant.source);
    if (!change.empty()) text += fmt::format("\n## The change that caused it (vs its parent #{})\n```diff\n{}```\n", parent->id, change);
  }
  text += "\n" + source_section(in.task, "Current source (the failing kernel)", failed) +
          "Fix the failure while keeping the optimization's intent. If the idea itself cannot work, say so in the "
          "RATIONALE and return the closest correct fast kernel.\n";
  return text;
}

std::string ideas_prompt(const PromptInputs& in, const Individual& parent, const std::string& diagnosis, int count) {
  return fmt::format("# Ideas: list optimizations\n\n{}{}{}", context_text(in, {parent.id}), diagnosis_text(diagnosis),
                     source_section(in.task, "Current source", parent)) +
         fmt::format("List {} distinct optimization ideas for this kernel, most promising first, as a numbered list, "
                     "one line each in the form `N. <short name>: <what to change and why>`. No code.\n",
                     count);
}

std::string implement_prompt(const PromptInputs& in, const Individual& parent, const std::string& diagnosis,
                             const std::string& idea) {
  return "# Implement an idea\n\n" + context_text(in, {parent.id}) + diagnosis_text(diagnosis) +
         source_section(in.task, "Current source", parent) + "Implement exactly this idea:\n" + idea + "\n";
}

std::string edit_retry_prompt(const std::vector<llm::EditFailure>& failures, const std::vector<llm::EditBlock>& edits) {
  std::string text = "# Edits did not apply\n\nThese edit blocks did not apply to the current source, so nothing was "
                     "changed:\n";
  for (const auto& failure : failures) {
    text += fmt::format("- block {}: {}\n", failure.index + 1, failure.reason);
    if (failure.index < edits.size()) text += "  SEARCH was:\n" + edits[failure.index].search;
  }
  return text + "\nReply again with SEARCH sections copied exactly from the current source, or with the complete "
                "kernel file in one fenced block. Keep the STRATEGY and RATIONALE lines.\n";
}

}  // namespace kforge
