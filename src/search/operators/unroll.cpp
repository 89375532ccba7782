#include "search/operators/unroll.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "search/operators/kernel_locator.h"
#include "search/operators/proposal_batch.h"
#include "search/operators/source_edit.h"

namespace kforge {
namespace {

// Literal trip counts above this are unrolled partially: full unrolling would bloat the code.
constexpr long kMaxFullUnrollLiteral = 64;
constexpr const char* kPartialPragma = "#pragma unroll 4";

// The tokens of a directive's text after its '#': "define", "NAME", ...
std::vector<Token> directive_tokens(const Token& directive) { return tokenize_c(std::string_view(directive.text).substr(1)); }

bool is_pragma(const Token& token) {
  if (token.kind != TokenKind::Directive) return false;
  const auto words = directive_tokens(token);
  return !words.empty() && is_token(words[0], "pragma");
}

// Object-like macros: `#define NAME body`, not `#define NAME(args) body`.
std::set<std::string> object_macros(const std::vector<Token>& tokens) {
  std::set<std::string> names;
  for (const Token& token : tokens) {
    if (token.kind != TokenKind::Directive) continue;
    const auto words = directive_tokens(token);
    if (words.size() < 2 || !is_token(words[0], "define") || words[1].kind != TokenKind::Identifier) continue;
    const bool function_like = words.size() > 2 && is_token(words[2], "(") && words[2].offset == words[1].end;
    if (!function_like) names.insert(words[1].text);
  }
  return names;
}

bool is_all_caps(const std::string& word) {
  return std::any_of(word.begin(), word.end(), [](unsigned char c) { return std::isupper(c); }) &&
         std::none_of(word.begin(), word.end(), [](unsigned char c) { return std::islower(c); });
}

bool is_constant_token(const Token& token, const std::set<std::string>& constants) {
  if (token.kind == TokenKind::Number) return std::strtol(token.text.c_str(), nullptr, 0) <= kMaxFullUnrollLiteral;
  if (token.kind == TokenKind::Identifier) return constants.count(token.text) || is_all_caps(token.text);
  return token.kind == TokenKind::Punct && std::string_view("+-*/%()<>").find(token.text) != std::string_view::npos;
}

// Whether the loop whose '(' is tokens[open] reads `var < BOUND` (or <=, >, >=, !=) with a
// BOUND made of constants.
bool has_constant_bound(const std::vector<Token>& tokens, std::size_t open, std::size_t close,
                        const std::set<std::string>& constants) {
  std::vector<std::size_t> semicolons;
  int depth = 0;
  for (std::size_t i = open + 1; i < close; ++i) {
    if (is_token(tokens[i], "(")) ++depth;
    if (is_token(tokens[i], ")")) --depth;
    if (depth == 0 && is_token(tokens[i], ";")) semicolons.push_back(i);
  }
  if (semicolons.size() != 2) return false;
  std::size_t i = semicolons[0] + 1;
  const std::size_t end = semicolons[1];
  if (end - i < 3 || tokens[i].kind != TokenKind::Identifier) return false;
  const Token& op = tokens[i + 1];
  if (!is_token(op, "<") && !is_token(op, ">") && !is_token(op, "!")) return false;
  i += is_token(tokens[i + 2], "=") ? 3 : 2;
  if (is_token(op, "!") && !is_token(tokens[i - 1], "=")) return false;
  return i < end && std::all_of(tokens.begin() + static_cast<std::ptrdiff_t>(i), tokens.begin() + static_cast<std::ptrdiff_t>(end),
                                [&](const Token& t) { return is_constant_token(t, constants); });
}

// A pragma line may only stand where a statement starts, and not where one is already.
bool can_take_pragma(const std::vector<Token>& tokens, std::size_t for_index) {
  const Token& previous = tokens[for_index - 1];
  if (previous.kind == TokenKind::Directive) return !is_pragma(previous);
  return is_token(previous, ";") || is_token(previous, "{") || is_token(previous, "}");
}

SourceEdit pragma_before(const std::string& source, const Token& for_token, const std::string& pragma) {
  if (!starts_line(source, for_token.offset)) return {for_token.offset, 0, "\n" + pragma + "\n"};
  const std::size_t begin = line_start(source, for_token.offset);
  return {begin, 0, source.substr(begin, for_token.offset - begin) + pragma + "\n"};
}

}  // namespace

std::optional<UnrollResult> add_unroll_pragmas(const std::string& source, Language language, const std::string& kernel,
                                               const std::set<std::string>& constants, UnrollKind kind) {
  const auto location = locate_kernel(source, language, kernel);
  if (!location) return std::nullopt;
  const std::vector<Token>& tokens = location->tokens;
  std::set<std::string> known = object_macros(tokens);
  known.insert(constants.begin(), constants.end());
  std::vector<SourceEdit> edits;
  for (std::size_t i = location->body_open + 1; i < location->body_close; ++i) {
    if (!is_token(tokens[i], "for") || !is_token(tokens[i + 1], "(") || !can_take_pragma(tokens, i)) continue;
    const std::size_t close = matching_close(tokens, i + 1);
    if (close >= location->body_close) continue;
    const bool constant = has_constant_bound(tokens, i + 1, close, known);
    if (constant != (kind == UnrollKind::Full)) continue;
    edits.push_back(pragma_before(source, tokens[i], kind == UnrollKind::Full ? "#pragma unroll" : kPartialPragma));
  }
  if (edits.empty()) return std::nullopt;
  UnrollResult result;
  result.loops = static_cast<int>(edits.size());
  result.source = apply_edits(source, std::move(edits));
  return result;
}

bool UnrollOperator::applicable(const Task& task) const { return is_c_family(task.kernel.language); }

std::vector<Proposal> UnrollOperator::propose(OperatorContext& context, const std::vector<const Individual*>& parents,
                                              int count) {
  ProposalBatch batch(context, name(), count);
  if (parents.empty() || count <= 0) return batch.take();
  const Individual& parent = *parents.front();
  std::set<std::string> tunables;
  for (const auto& param : context.task.params) tunables.insert(param.name);
  const std::string kernel = entry_point(context.task, parent.variant.kernel);
  for (UnrollKind kind : {UnrollKind::Full, UnrollKind::Partial}) {
    auto result = add_unroll_pragmas(parent.variant.source, context.task.kernel.language, kernel, tunables, kind);
    if (!result) continue;
    KernelVariant variant = parent.variant;
    variant.source = std::move(result->source);
    const bool full = kind == UnrollKind::Full;
    batch.add(std::move(variant), {&parent},
              std::string(full ? "#pragma unroll" : kPartialPragma) + " on " + std::to_string(result->loops) +
                  (full ? " constant-bound loop(s)" : " run-time-bound loop(s)"),
              full ? "loops with compile-time trip counts unroll completely: no loop overhead, values in registers"
                   : "partial unrolling overlaps independent iterations' memory accesses");
  }
  return batch.take();
}

}  // namespace kforge
