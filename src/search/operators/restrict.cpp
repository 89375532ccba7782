#include "search/operators/restrict.h"

#include <algorithm>

#include "search/operators/kernel_locator.h"
#include "search/operators/proposal_batch.h"
#include "search/operators/source_edit.h"

namespace kforge {
namespace {

bool is_restrict_word(const Token& token) {
  return is_token(token, "restrict") || is_token(token, "__restrict__") || is_token(token, "__restrict");
}

// OpenCL __local pointers are work-group scratch memory, not kforge's buffers.
bool is_local_memory(const Token& token) { return is_token(token, "__local") || is_token(token, "local"); }

// Where the qualifier goes in one parameter: just after its last '*'. nullopt for non-pointers,
// parameters already restricted, arrays and function pointers (left alone).
std::optional<std::size_t> restrict_position(const std::vector<Token>& param) {
  std::optional<std::size_t> star;
  for (const Token& token : param) {
    if (is_restrict_word(token) || is_local_memory(token) || is_token(token, "(") || is_token(token, "[")) return std::nullopt;
    if (is_token(token, "*")) star = token.end;
  }
  return star;
}

std::string parameter_name(const std::vector<Token>& param) {
  for (auto it = param.rbegin(); it != param.rend(); ++it)
    if (it->kind == TokenKind::Identifier) return it->text;
  return "?";
}

}  // namespace

std::optional<RestrictResult> add_restrict(const std::string& source, Language language, const std::string& kernel) {
  const auto location = locate_kernel(source, language, kernel);
  if (!location) return std::nullopt;
  const std::string qualifier = " " + language_facts(language).restrict_qualifier;
  std::vector<SourceEdit> edits;
  RestrictResult result;
  for (const auto& param : split_commas(location->tokens, location->params_open + 1, location->params_close)) {
    const auto position = restrict_position(param);
    if (!position) continue;
    const bool glued_to_name = *position < source.size() && is_identifier_char(source[*position]);  // `float *b`
    edits.push_back({*position, 0, qualifier + (glued_to_name ? " " : "")});
    result.params.push_back(parameter_name(param));
  }
  if (edits.empty()) return std::nullopt;
  result.source = apply_edits(source, std::move(edits));
  return result;
}

bool RestrictOperator::applicable(const Task& task) const { return is_c_family(task.kernel.language); }

std::vector<Proposal> RestrictOperator::propose(OperatorContext& context, const std::vector<const Individual*>& parents,
                                                int count) {
  ProposalBatch batch(context, name(), count);
  if (parents.empty() || count <= 0) return batch.take();
  const Individual& parent = *parents.front();
  const Language language = context.task.kernel.language;
  auto result = add_restrict(parent.variant.source, language, entry_point(context.task, parent.variant.kernel));
  if (!result) return batch.take();
  std::string names;
  for (const auto& param : result->params) names += (names.empty() ? "" : ", ") + param;
  KernelVariant variant = parent.variant;
  variant.source = std::move(result->source);
  batch.add(std::move(variant), {&parent},
            language_facts(language).restrict_qualifier + " on " + names,
            "kforge's buffers never alias, so the compiler may cache loads across stores and use the "
            "read-only path for inputs");
  return batch.take();
}

}  // namespace kforge
