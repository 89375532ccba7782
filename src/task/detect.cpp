#include "task/detect.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "task/c_tokenizer.h"
#include "task/kernelbench.h"
#include "util/files.h"

namespace kforge {
namespace {

// Joins tokens back into readable text: a space only between two words, after commas and
// around '='.
std::string join_tokens(const std::vector<Token>& tokens, std::size_t begin, std::size_t end) {
  std::string text;
  auto wordlike = [](const Token& t) { return t.kind != TokenKind::Punct; };
  for (std::size_t i = begin; i < end; ++i) {
    const bool spaced = i > begin && ((wordlike(tokens[i - 1]) && wordlike(tokens[i])) || is_token(tokens[i - 1], ",") ||
                                      is_token(tokens[i - 1], "=") || is_token(tokens[i], "="));
    if (spaced) text += ' ';
    text += tokens[i].text;
  }
  return text;
}

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

bool is_kernel_marker(const Token& token, Language language) {
  if (token.kind != TokenKind::Identifier) return false;
  if (language == Language::OpenCL) return token.text == "__kernel" || token.text == "kernel";
  return token.text == "__global__";
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

// ---------------------------------------------------------------------------------------------
// Python tokenizer, just enough for Triton: names, numbers, strings (all prefixes, triple
// quotes), operators, comments, and NEWLINE tokens that end logical lines (none inside brackets).
class PyLexer {
 public:
  explicit PyLexer(std::string_view source) : src_(source) {}

  std::vector<Token> run() {
    while (pos_ < src_.size()) step();
    end_logical_line();
    return std::move(tokens_);
  }

 private:
  char peek(std::size_t ahead = 0) const { return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0'; }

  void step() {
    char c = peek();
    if (c == '\n') {
      if (depth_ == 0) end_logical_line();
      ++line_;
      ++pos_;
    } else if (c == '\\' && peek(1) == '\n') {  // explicit line joining
      ++line_;
      pos_ += 2;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++pos_;
    } else if (c == '#') {
      while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
    } else if (is_identifier_start(c)) {
      read_name_or_prefixed_string();
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      read_number();
    } else if (c == '"' || c == '\'') {
      read_string(pos_);
    } else {
      read_operator(c);
    }
  }

  // NEWLINE reuses the Directive kind: like a C directive, it is a statement boundary.
  void end_logical_line() {
    if (!tokens_.empty() && tokens_.back().kind != TokenKind::Directive)
      tokens_.push_back({TokenKind::Directive, "NEWLINE", line_});
  }

  void read_name_or_prefixed_string() {
    std::size_t begin = pos_;
    while (is_identifier_char(peek())) ++pos_;
    std::string word(src_.substr(begin, pos_ - begin));
    std::string lower = word;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
    static const std::set<std::string> prefixes{"r", "u", "b", "f", "br", "rb", "fr", "rf"};
    if ((peek() == '"' || peek() == '\'') && prefixes.count(lower)) return read_string(begin);
    tokens_.push_back({TokenKind::Identifier, word, line_});
  }

  void read_number() {
    std::size_t begin = pos_;
    while (is_identifier_char(peek()) || peek() == '.') ++pos_;
    tokens_.push_back({TokenKind::Number, std::string(src_.substr(begin, pos_ - begin)), line_});
  }

  // Single or triple quoted; a backslash always protects the next character from ending it.
  void read_string(std::size_t begin) {
    int start_line = line_;
    char quote = peek();
    bool triple = peek(1) == quote && peek(2) == quote;
    pos_ += triple ? 3 : 1;
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (c == '\\') {
        if (peek(1) == '\n') ++line_;
        pos_ += 2;
        continue;
      }
      if (c == '\n') {
        if (!triple) break;  // unterminated single-quoted string
        ++line_;
      }
      if (c == quote && (!triple || (peek(1) == quote && peek(2) == quote))) {
        pos_ += triple ? 3 : 1;
        break;
      }
      ++pos_;
    }
    pos_ = std::min(pos_, src_.size());
    tokens_.push_back({TokenKind::String, std::string(src_.substr(begin, pos_ - begin)), start_line});
  }

  void read_operator(char c) {
    if (c == '(' || c == '[' || c == '{') ++depth_;
    if ((c == ')' || c == ']' || c == '}') && depth_ > 0) --depth_;
    std::size_t length = (c == '*' && peek(1) == '*') || (c == '-' && peek(1) == '>') ? 2 : 1;
    tokens_.push_back({TokenKind::Punct, std::string(src_.substr(pos_, length)), line_});
    pos_ += length;
  }

  std::string_view src_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int depth_ = 0;
  std::vector<Token> tokens_;
};

bool is_newline(const Token& t) { return t.kind == TokenKind::Directive; }

// "def f(x_ptr, n, BLOCK: tl.constexpr = 128)": one parameter's tokens.
std::optional<KernelParam> parse_python_param(const std::vector<Token>& tokens) {
  if (tokens.empty() || tokens[0].kind != TokenKind::Identifier) return std::nullopt;  // `*`, `/`, `*args`
  KernelParam param;
  param.name = tokens[0].text;
  std::size_t annotation_end = tokens.size();
  for (std::size_t i = 1; i < tokens.size(); ++i)
    if (is_token(tokens[i], "=")) annotation_end = std::min(annotation_end, i);
  if (tokens.size() > 1 && is_token(tokens[1], ":")) param.type = join_tokens(tokens, 2, annotation_end);
  param.is_constexpr = param.type.find("constexpr") != std::string::npos;
  // Triton pointers are untyped in the signature; by convention their names say "ptr".
  param.is_pointer = !param.is_constexpr && param.name.find("ptr") != std::string::npos;
  return param;
}

std::vector<DetectedKernel> detect_triton(const std::vector<Token>& tokens, const std::filesystem::path& file) {
  std::vector<DetectedKernel> kernels;
  std::vector<std::string> decorators;  // those of the def that follows
  bool line_start = true;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (is_newline(t)) {
      line_start = true;
      continue;
    }
    if (!line_start) continue;
    line_start = false;
    if (is_token(t, "@")) {
      std::size_t end = i + 1;
      while (end < tokens.size() && (tokens[end].kind == TokenKind::Identifier || is_token(tokens[end], "."))) ++end;
      decorators.push_back(join_tokens(tokens, i + 1, end));
      continue;
    }
    std::size_t def = is_token(t, "async") ? i + 1 : i;
    bool is_def = def + 2 < tokens.size() && is_token(tokens[def], "def") && is_token(tokens[def + 2], "(");
    bool jitted = std::find(decorators.begin(), decorators.end(), "triton.jit") != decorators.end();
    if (is_def && jitted) {
      DetectedKernel kernel;
      kernel.name = tokens[def + 1].text;
      kernel.line = tokens[def + 1].line;
      kernel.language = Language::Triton;
      kernel.file = file;
      kernel.attributes = decorators;
      std::size_t close = skip_balanced(tokens, def + 2);
      for (const auto& part : split_commas(tokens, def + 3, close - 1))
        if (auto param = parse_python_param(part)) kernel.params.push_back(*param);
      kernels.push_back(std::move(kernel));
    }
    decorators.clear();
  }
  return kernels;
}

bool includes_hip_runtime(const std::vector<Token>& tokens) {
  for (const Token& t : tokens) {
    if (t.kind != TokenKind::Directive) continue;
    Directive d = parse_directive(t.text);
    if (d.keyword == "include" && d.body.find("hip/hip_runtime.h") != std::string::npos) return true;
  }
  return false;
}

// Whether `import X` / `from X import` names the module `root` (or one of its submodules).
bool python_imports(const std::vector<Token>& tokens, const std::string& root) {
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    bool statement_start = i == 0 || is_newline(tokens[i - 1]) || is_token(tokens[i - 1], ";");
    if (!statement_start || !(is_token(tokens[i], "import") || is_token(tokens[i], "from"))) continue;
    for (std::size_t j = i + 1; j < tokens.size() && !is_newline(tokens[j]); ++j) {
      if (is_token(tokens[j], "import") && is_token(tokens[i], "from")) break;  // names after this are members
      bool module_start = is_token(tokens[j - 1], "import") || is_token(tokens[j - 1], "from") || is_token(tokens[j - 1], ",");
      if (module_start && is_token(tokens[j], root)) return true;
    }
  }
  return false;
}

std::string lowercase_extension(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

bool is_hidden_or_cache(const std::filesystem::path& dir) {
  std::string name = dir.filename().string();
  return (!name.empty() && name[0] == '.') || name == "__pycache__";
}

// A KernelBench problem is one "kernel": its Model, whose inputs come from get_inputs().
std::vector<DetectedKernel> detect_kernelbench(std::string_view source, const std::filesystem::path& file) {
  if (!is_kernelbench_source(source)) return {};
  DetectedKernel kernel;
  kernel.name = "Model";
  kernel.language = Language::PyTorch;
  kernel.file = file;
  const auto at = source.find("class Model");
  kernel.line = 1 + static_cast<int>(std::count(source.begin(), source.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  kernel.attributes.push_back("kernelbench");
  return {kernel};
}

}  // namespace

std::optional<Language> language_for_file(const std::filesystem::path& file, std::string_view source) {
  std::string ext = lowercase_extension(file);
  if (ext == ".hip") return Language::Hip;
  if (ext == ".cl") return Language::OpenCL;
  if (ext == ".py") {
    auto tokens = PyLexer(source).run();
    if (python_imports(tokens, "triton")) return Language::Triton;
    if (python_imports(tokens, "torch")) return Language::PyTorch;
    return std::nullopt;
  }
  static const std::set<std::string> cuda_exts{".cu", ".cuh"};
  static const std::set<std::string> cxx_exts{".cpp", ".cc", ".cxx", ".h", ".hpp"};
  if (!cuda_exts.count(ext) && !cxx_exts.count(ext)) return std::nullopt;
  if (includes_hip_runtime(tokenize_c(source))) return Language::Hip;
  if (cuda_exts.count(ext)) return Language::Cuda;
  return std::nullopt;
}

bool defines_python_function(std::string_view source, const std::string& name) {
  // Lines that start with "def" (column 0); the tokens say which of them are real code.
  std::set<int> top_level_def_lines;
  int line = 1;
  for (std::size_t at = 0; at < source.size(); ++line) {
    if (source.substr(at, 4) == "def ") top_level_def_lines.insert(line);
    at = source.find('\n', at);
    if (at == std::string_view::npos) break;
    ++at;
  }
  const auto tokens = PyLexer(source).run();
  for (std::size_t i = 0; i + 2 < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (is_token(t, "def") && top_level_def_lines.count(t.line) && tokens[i + 1].text == name &&
        is_token(tokens[i + 2], "("))
      return true;
  }
  return false;
}

std::vector<DetectedKernel> detect_kernels_in_source(std::string_view source, Language language,
                                                     const std::filesystem::path& file) {
  switch (language) {
    case Language::Triton:
      return detect_triton(PyLexer(source).run(), file);
    case Language::PyTorch:
      return detect_kernelbench(source, file);
    case Language::Cuda:
    case Language::Hip:
    case Language::OpenCL:
      break;
  }
  return CKernelParser(expand_object_macros(tokenize_c(source)), language, file).run();
}

std::vector<DetectedKernel> detect_kernels(const std::filesystem::path& file_or_folder) {
  namespace fs = std::filesystem;
  if (!fs::exists(file_or_folder))
    throw TaskError(file_or_folder.string() + ": no such file or folder; pass a kernel source or a folder of them");
  std::vector<DetectedKernel> kernels;
  auto scan = [&](const fs::path& file, bool must_be_kernel_source) {
    std::string source = read_file(file);
    auto language = language_for_file(file, source);
    if (!language && must_be_kernel_source)
      throw TaskError(file.string() + ": not a kernel source; use .cu .cuh .hip .cl or a .py that imports triton");
    if (!language) return;
    auto found = detect_kernels_in_source(source, *language, file);
    kernels.insert(kernels.end(), found.begin(), found.end());
  };
  if (!fs::is_directory(file_or_folder)) {
    scan(file_or_folder, true);
    return kernels;
  }
  for (auto it = fs::recursive_directory_iterator(file_or_folder); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && is_hidden_or_cache(it->path())) {
      it.disable_recursion_pending();
    } else if (it->is_regular_file()) {
      scan(it->path(), false);
    }
  }
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const auto& a, const auto& b) { return std::tie(a.file, a.line) < std::tie(b.file, b.line); });
  return kernels;
}

}  // namespace kforge
