#include "search/operators/compiler_options.h"

#include <algorithm>
#include <map>

#include "search/operators/proposal_batch.h"

namespace kforge {
namespace {

constexpr const char* kRegisterCap = "maxrregcount";

// "--use_fast_math" and "-use_fast_math" are one NVRTC option; "--maxrregcount=64" is named
// "maxrregcount".
std::string option_name(const std::string& option) {
  const std::size_t begin = option.find_first_not_of('-');
  const std::string bare = begin == std::string::npos ? "" : option.substr(begin);
  return bare.substr(0, bare.find('='));
}

// Options whose effect includes another's: adding the implied one changes nothing.
const std::map<std::string, std::vector<std::string>>& implied_options() {
  static const std::map<std::string, std::vector<std::string>> implied{
      {"cl-fast-relaxed-math", {"cl-mad-enable", "cl-no-signed-zeros"}},
      {"cl-unsafe-math-optimizations", {"cl-mad-enable", "cl-no-signed-zeros"}},
  };
  return implied;
}

bool already_has(const std::vector<std::string>& options, const std::string& name) {
  for (const auto& option : options) {
    const std::string present = option_name(option);
    if (present == name) return true;
    auto it = implied_options().find(present);
    if (it != implied_options().end() && std::count(it->second.begin(), it->second.end(), name)) return true;
  }
  return false;
}

std::string rationale_for(const std::string& option) {
  const std::string name = option_name(option);
  if (name == kRegisterCap) return "a register cap trades spills for occupancy";
  if (name == "use_fast_math" || name == "cl-fast-relaxed-math")
    return "approximate math stays within the task's tolerance and is much cheaper";
  if (name == "extra-device-vectorization") return "lets NVVM vectorise more loads and stores";
  if (name == "cl-mad-enable") return "fused multiply-add: fewer instructions, slightly different rounding";
  return "lets the compiler ignore the sign of zero in float arithmetic";
}

}  // namespace

bool fast_math_allowed(const Task& task) {
  bool any_float_output = false;
  for (const auto& arg : task.args) {
    const bool written = arg.role == ArgRole::Output || arg.role == ArgRole::InOut;
    if (!written || !is_floating(arg.dtype)) continue;  // integer outputs are compared exactly anyway
    if (tolerance_for(task, arg.dtype).rtol < kFastMathMinRtol) return false;
    any_float_output = true;
  }
  return any_float_output;
}

std::vector<std::string> candidate_options(const Task& task) {
  const bool fast_math = fast_math_allowed(task);
  const LanguageFacts& facts = language_facts(task.kernel.language);
  std::vector<std::string> options = facts.tuning_options;
  if (fast_math && !facts.fast_math_option.empty()) options.push_back(facts.fast_math_option);
  return options;
}

std::optional<std::vector<std::string>> with_option(const std::vector<std::string>& existing,
                                                    const std::vector<std::string>& task_options,
                                                    const std::string& option) {
  const std::string name = option_name(option);
  if (std::find(existing.begin(), existing.end(), option) != existing.end()) return std::nullopt;
  // The task's own register cap is not ours to override: NVRTC rejects a repeated one.
  if (already_has(task_options, name)) return std::nullopt;
  std::vector<std::string> combined;
  for (const auto& present : existing)
    if (!(name == kRegisterCap && option_name(present) == kRegisterCap)) combined.push_back(present);
  if (name != kRegisterCap && already_has(combined, name)) return std::nullopt;
  combined.push_back(option);
  return combined;
}

bool CompilerOptionsOperator::applicable(const Task& task) const { return !candidate_options(task).empty(); }

std::vector<Proposal> CompilerOptionsOperator::propose(OperatorContext& context,
                                                       const std::vector<const Individual*>& parents, int count) {
  ProposalBatch batch(context, name(), count);
  if (parents.empty() || count <= 0) return batch.take();
  const Individual& parent = *parents.front();
  std::vector<std::string> options = candidate_options(context.task);
  std::shuffle(options.begin(), options.end(), context.rng);
  for (const auto& option : options) {
    auto combined = with_option(parent.variant.options, context.task.compile_options, option);
    if (!combined) continue;
    KernelVariant variant = parent.variant;
    variant.options = std::move(*combined);
    batch.add(std::move(variant), {&parent}, "add " + option, rationale_for(option));
    if (batch.full()) break;
  }
  return batch.take();
}

}  // namespace kforge
