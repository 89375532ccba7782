// Kernel detection in C-like sources (CUDA, HIP, OpenCL C): kernel declarations, found with the
// C tokenizer after expanding object-like macros, and the #include test for content markers.
#include <algorithm>
#include <map>
#include <set>

#include "task/c_tokenizer.h"
#include "task/detect_families.h"

namespace kforge {
namespace {

// Splits "#  define NAME body" into its parts; `function_like` when NAME is followed by '('.
struct Directive {
  std::string keyword;
  std::string name;
  bool function_like = false;
  std::string body;
};

Directive parse_directive(const std::string& text) {
  Directive d;
  std::size_t i = text.find_first_not_of(" \t", 1);
  auto read_word = [&]() {
    std::size_t begin = i;
    while (i < text.size() && is_identifier_char(text[i])) ++i;
    return text.substr(begin, i - begin);
  };
  if (i == std::string::npos) return d;
  d.keyword = read_word();
  i = text.find_first_not_of(" \t", i);
  if (i == std::string::npos) return d;
  if (d.keyword == "include") {
    d.body = text.substr(i);
    return d;
  }
  d.name = read_word();
  d.function_like = i < text.size() && text[i] == '(';
  if (i < text.size()) d.body = text.substr(i);
  return d;
}

// Expands object-like macros (e.g. `#define KERNEL extern "C" __global__`) so that kernels
// declared through them are found. Function-like macros are left alone: a kernel defined
// inside a macro body is a template for code, not a kernel of this file.
std::vector<Token> expand_object_macros(const std::vector<Token>& tokens) {
  std::map<std::string, std::vector<Token>> macros;
  std::vector<Token> out;
  std::set<std::string> expanding;  // stops self-referential macros from recursing forever
  auto emit = [&](auto& self, const Token& token) -> void {
    auto it = macros.find(token.text);
    if (token.kind != TokenKind::Identifier || it == macros.end() || expanding.count(token.text)) {
      out.push_back(token);
      return;
    }
    expanding.insert(token.text);
    for (Token body_token : it->second) {
      body_token.line = token.line;
      self(self, body_token);
    }
    expanding.erase(token.text);
  };
  for (const Token& token : tokens) {
    if (token.kind == TokenKind::Directive) {
      Directive d = parse_directive(token.text);
      if (d.keyword == "define" && !d.name.empty() && !d.function_like)
        macros[d.name] = tokenize_c(d.body, token.line);
      else if (d.keyword == "undef")
        macros.erase(d.name);
      out.push_back(token);
    } else {
      emit(emit, token);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// C-family kernel declarations.

// A qualifier that makes a function a kernel in `language` (languages.h: kernel_qualifiers).
bool is_kernel_marker(const Token& token, Language language) {
  if (token.kind != TokenKind::Identifier) return false;
  const auto& qualifiers = language_facts(language).kernel_qualifiers;
  return std::find(qualifiers.begin(), qualifiers.end(), token.text) != qualifiers.end();
}

// Attribute-like keywords that take a parenthesized argument list.
bool is_call_attribute(const std::string& word) {
  static const std::set<std::string> words{"__launch_bounds__", "__attribute__", "__declspec", "alignas",
                                           "__align__", "__cluster_dims__", "__maxnreg__"};
  return words.count(word) > 0;
}

bool is_recorded_specifier(const std::string& word) {
  static const std::set<std::string> words{"static", "inline", "__inline__", "__forceinline__", "__noinline__"};
  return words.count(word) > 0;
}

bool is_builtin_type_word(const std::string& word) {
  static const std::set<std::string> words{"void",  "bool",   "char",     "short",  "int",    "long",
                                           "float", "double", "unsigned", "signed", "half", "size_t"};
  return words.count(word) > 0;
}

// Qualifiers that say where or how a pointer is accessed, not what it points to.
bool is_dropped_qualifier(const std::string& word) {
  static const std::set<std::string> words{"__global",    "global",     "__private",   "private",
                                           "restrict",    "__restrict__", "__restrict", "volatile",
                                           "__read_only", "read_only",  "__write_only", "write_only",
                                           "__read_write", "read_write", "struct"};
  return words.count(word) > 0;
}

KernelParam parse_c_param(std::vector<Token> tokens) {
  KernelParam param;
  // Default arguments and attributes say nothing about the parameter's type.
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (is_token(tokens[i], "=")) {
      tokens.resize(i);
      break;
    }
  }
  std::vector<Token> kept;
  bool seen_star = false;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind == TokenKind::Identifier && is_call_attribute(t.text) && i + 1 < tokens.size() && is_token(tokens[i + 1], "(")) {
      i = skip_balanced(tokens, i + 1) - 1;
    } else if (is_token(t, "[")) {  // `float x[]` is a pointer parameter
      param.is_pointer = true;
      i = skip_balanced(tokens, i) - 1;
    } else if (is_token(t, "const")) {
      if (!seen_star) param.is_const = true;
    } else if (is_token(t, "__constant") || is_token(t, "constant")) {
      param.is_const = true;
    } else if (is_token(t, "__local") || is_token(t, "local")) {
      param.is_local = true;
    } else if (t.kind == TokenKind::Identifier && is_dropped_qualifier(t.text)) {
      continue;
    } else {
      if (is_token(t, "*")) seen_star = param.is_pointer = true;
      kept.push_back(t);
    }
  }
  const bool last_is_name = kept.size() > 1 && kept.back().kind == TokenKind::Identifier &&
                            !is_builtin_type_word(kept.back().text) && !is_token(kept[kept.size() - 2], "::");
  if (last_is_name) {
    param.name = kept.back().text;
    kept.pop_back();
  }
  param.type = join_tokens(kept, 0, kept.size());
  if (param.is_pointer && param.type.find('*') == std::string::npos) param.type += "*";
  return param;
}

class CKernelParser {
 public:
  CKernelParser(std::vector<Token> tokens, Language language, std::filesystem::path file)
      : tokens_(std::move(tokens)), language_(language), file_(std::move(file)) {}

  std::vector<DetectedKernel> run() {
    for (std::size_t i = 0; i < tokens_.size(); ++i)
      if (is_kernel_marker(tokens_[i], language_)) i = parse_declaration(i);
    return std::move(kernels_);
  }

 private:
  // The declaration begins after the previous statement, block boundary or directive.
  std::size_t declaration_start(std::size_t marker) const {
    std::size_t i = marker;
    while (i > 0) {
      const Token& t = tokens_[i - 1];
      if (t.kind == TokenKind::Directive || is_token(t, ";") || is_token(t, "{") || is_token(t, "}")) break;
      --i;
    }
    return i;
  }

  // Returns the index to continue scanning from.
  std::size_t parse_declaration(std::size_t marker) {
    DetectedKernel kernel;
    kernel.language = language_;
    kernel.file = file_;
    std::size_t i = declaration_start(marker);
    if (is_token(tokens_[i], "template") && i + 1 < tokens_.size() && is_token(tokens_[i + 1], "<")) {
      std::size_t end = skip_balanced(tokens_, i + 1);
      for (const auto& part : split_commas(tokens_, i + 2, end - 1))
        kernel.template_params.push_back(join_tokens(part, 0, part.size()));
      i = end;
    }
    std::size_t open_paren = 0;
    for (; i < tokens_.size() && open_paren == 0; ++i) {
      const Token& t = tokens_[i];
      bool followed_by_paren = i + 1 < tokens_.size() && is_token(tokens_[i + 1], "(");
      if (is_token(t, ";") || is_token(t, "{") || is_token(t, "}")) return i;  // not a function after all
      if (t.kind == TokenKind::Identifier && is_call_attribute(t.text) && followed_by_paren) {
        std::size_t end = skip_balanced(tokens_, i + 1);
        kernel.attributes.push_back(join_tokens(tokens_, i, end));
        i = end - 1;
      } else if (is_token(t, "[") && i + 1 < tokens_.size() && is_token(tokens_[i + 1], "[")) {
        std::size_t end = skip_balanced(tokens_, i);
        kernel.attributes.push_back(join_tokens(tokens_, i, end));
        i = end - 1;
      } else if (is_token(t, "extern") && i + 1 < tokens_.size() && tokens_[i + 1].kind == TokenKind::String) {
        kernel.attributes.push_back("extern " + tokens_[i + 1].text);
        ++i;
      } else if (t.kind == TokenKind::Identifier && is_recorded_specifier(t.text)) {
        kernel.attributes.push_back(t.text);
      } else if (t.kind == TokenKind::Identifier && followed_by_paren) {
        kernel.name = t.text;
        kernel.line = t.line;
        open_paren = i + 1;
      }
    }
    if (open_paren == 0) return tokens_.size();
    std::size_t close = skip_balanced(tokens_, open_paren);
    for (auto& part : split_commas(tokens_, open_paren + 1, close - 1)) {
      if (part.size() == 1 && is_token(part[0], "void")) continue;
      kernel.params.push_back(parse_c_param(std::move(part)));
    }
    std::size_t end = close;
    while (end < tokens_.size() && !is_token(tokens_[end], "{") && !is_token(tokens_[end], ";")) ++end;
    record(std::move(kernel), end < tokens_.size() && is_token(tokens_[end], "{"));
    return end;
  }

  // A prototype and its definition are one kernel; the definition's line wins.
  void record(DetectedKernel kernel, bool is_definition) {
    auto same = std::find_if(kernels_.begin(), kernels_.end(), [&](const auto& k) { return k.name == kernel.name; });
    if (same == kernels_.end()) {
      kernels_.push_back(std::move(kernel));
      defined_.push_back(is_definition);
      return;
    }
    std::size_t index = static_cast<std::size_t>(same - kernels_.begin());
    if (is_definition && !defined_[index]) {
      kernels_[index] = std::move(kernel);
      defined_[index] = true;
    } else if (is_definition) {  // an overload: a genuinely different kernel
      kernels_.push_back(std::move(kernel));
      defined_.push_back(true);
    }
  }

  std::vector<Token> tokens_;
  Language language_;
  std::filesystem::path file_;
  std::vector<DetectedKernel> kernels_;
  std::vector<bool> defined_;
};

}  // namespace

bool includes_header(const std::vector<Token>& tokens, const std::string& header) {
  for (const Token& t : tokens) {
    if (t.kind != TokenKind::Directive) continue;
    Directive d = parse_directive(t.text);
    if (d.keyword == "include" && d.body.find(header) != std::string::npos) return true;
  }
  return false;
}

std::vector<DetectedKernel> detect_c_kernels(std::string_view source, Language language,
                                             const std::filesystem::path& file) {
  return CKernelParser(expand_object_macros(tokenize_c(source)), language, file).run();
}

}  // namespace kforge
