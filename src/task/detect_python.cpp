// Kernel detection in Python sources: @triton.jit functions and KernelBench models, read with a
// small Python lexer; the import test for content markers; top-level function lookup.
#include <algorithm>
#include <cctype>
#include <set>

#include "task/c_tokenizer.h"
#include "task/detect_families.h"
#include "task/kernelbench.h"

namespace kforge {
namespace {

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

std::vector<DetectedKernel> jit_kernels_in_tokens(const std::vector<Token>& tokens, Language language,
                                                 const std::filesystem::path& file) {
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
      kernel.language = language;
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

}  // namespace

std::vector<Token> python_tokens(std::string_view source) { return PyLexer(source).run(); }

std::vector<DetectedKernel> detect_jit_kernels(std::string_view source, Language language,
                                               const std::filesystem::path& file) {
  return jit_kernels_in_tokens(python_tokens(source), language, file);
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

// A KernelBench problem is one "kernel": its Model, whose inputs come from get_inputs().
std::vector<DetectedKernel> detect_kernelbench_model(std::string_view source, Language language,
                                                    const std::filesystem::path& file) {
  if (!is_kernelbench_source(source)) return {};
  DetectedKernel kernel;
  kernel.name = "Model";
  kernel.language = language;
  kernel.file = file;
  const auto at = source.find("class Model");
  kernel.line = 1 + static_cast<int>(std::count(source.begin(), source.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  kernel.attributes.push_back("kernelbench");
  return {kernel};
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

}  // namespace kforge
