#include "search/operators/kernel_locator.h"

#include <algorithm>

namespace kforge {
namespace {

bool is_kernel_marker(const Token& token, Language language) {
  if (token.kind != TokenKind::Identifier) return false;
  const auto& qualifiers = language_facts(language).kernel_qualifiers;
  return std::find(qualifiers.begin(), qualifiers.end(), token.text) != qualifiers.end();
}

bool ends_declaration(const Token& token) {
  return token.kind == TokenKind::Directive || is_token(token, ";") || is_token(token, "{") || is_token(token, "}");
}

// Whether the declaration holding tokens[name] carries a kernel marker before the name.
bool declared_as_kernel(const std::vector<Token>& tokens, std::size_t name, Language language) {
  for (std::size_t i = name; i > 0 && !ends_declaration(tokens[i - 1]); --i)
    if (is_kernel_marker(tokens[i - 1], language)) return true;
  return false;
}

// The definition whose name is tokens[name]; nullopt for a prototype or unbalanced brackets.
std::optional<KernelLocation> definition_at(const std::vector<Token>& tokens, std::size_t name) {
  KernelLocation location;
  location.name = name;
  location.params_open = name + 1;
  location.params_close = matching_close(tokens, location.params_open);
  std::size_t body = location.params_close;
  while (body < tokens.size() && !is_token(tokens[body], "{") && !is_token(tokens[body], ";")) ++body;
  if (body >= tokens.size() || !is_token(tokens[body], "{")) return std::nullopt;
  location.body_open = body;
  location.body_close = matching_close(tokens, body);
  if (location.body_close >= tokens.size()) return std::nullopt;
  return location;
}

}  // namespace

std::size_t matching_close(const std::vector<Token>& tokens, std::size_t open) {
  const std::string opening = tokens[open].text;
  const std::string closing = opening == "(" ? ")" : opening == "{" ? "}" : "]";
  int depth = 0;
  for (std::size_t i = open; i < tokens.size(); ++i) {
    if (is_token(tokens[i], opening)) ++depth;
    if (is_token(tokens[i], closing) && --depth == 0) return i;
  }
  return tokens.size();
}

bool is_c_family(Language language) { return language_facts(language).syntax == SyntaxFamily::CLike; }

std::string entry_point(const Task& task, const std::string& variant_kernel) {
  return variant_kernel.empty() ? task.kernel.kernel : variant_kernel;
}

std::optional<KernelLocation> locate_kernel(const std::string& source, Language language, const std::string& kernel) {
  if (!is_c_family(language)) return std::nullopt;
  const std::string name = kernel.substr(0, kernel.find('<'));
  std::vector<Token> tokens = tokenize_c(source);
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    const bool candidate = tokens[i].kind == TokenKind::Identifier && tokens[i].text == name &&
                           is_token(tokens[i + 1], "(") && declared_as_kernel(tokens, i, language);
    if (!candidate) continue;
    if (auto location = definition_at(tokens, i)) {
      location->tokens = std::move(tokens);
      return location;
    }
  }
  return std::nullopt;
}

}  // namespace kforge
