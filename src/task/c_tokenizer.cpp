#include "task/c_tokenizer.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace kforge {
namespace {

class CLexer {
 public:
  CLexer(std::string_view source, int first_line) : src_(source), line_(first_line) {}

  std::vector<Token> run() {
    while (pos_ < src_.size()) step();
    return std::move(tokens_);
  }

 private:
  char peek(std::size_t ahead = 0) const { return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0'; }

  void step() {
    char c = peek();
    if (c == '\n') {
      ++line_;
      ++pos_;
      at_line_start_ = true;
    } else if (c == '\\' && peek(1) == '\n') {  // line splice outside a directive
      pos_ += 2;
      ++line_;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++pos_;
    } else if (c == '/' && peek(1) == '/') {
      skip_line_comment();
    } else if (c == '/' && peek(1) == '*') {
      skip_block_comment();
    } else if (c == '#' && at_line_start_) {
      read_directive();
    } else {
      at_line_start_ = false;
      read_token(c);
    }
  }

  void skip_line_comment() {
    while (pos_ < src_.size() && src_[pos_] != '\n') {
      if (src_[pos_] == '\\' && peek(1) == '\n') {  // a spliced // comment continues
        ++line_;
        ++pos_;
      }
      ++pos_;
    }
  }

  void skip_block_comment() {
    pos_ += 2;
    while (pos_ < src_.size() && !(src_[pos_] == '*' && peek(1) == '/')) {
      if (src_[pos_] == '\n') ++line_;
      ++pos_;
    }
    pos_ = std::min(pos_ + 2, src_.size());
  }

  void read_directive() {
    int start_line = line_;
    std::size_t begin = pos_;
    std::string text;
    while (pos_ < src_.size() && src_[pos_] != '\n') {
      if (src_[pos_] == '\\' && peek(1) == '\n') {
        text += ' ';
        pos_ += 2;
        ++line_;
      } else if (src_[pos_] == '/' && peek(1) == '*') {
        text += ' ';
        skip_block_comment();
      } else if (src_[pos_] == '/' && peek(1) == '/') {
        skip_line_comment();
      } else {
        text += src_[pos_++];
      }
    }
    tokens_.push_back({TokenKind::Directive, text, start_line, begin, pos_});
  }

  void read_token(char c) {
    if (is_identifier_start(c)) return read_identifier_or_prefixed_literal();
    if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1)))))
      return read_number();
    if (c == '"') return read_quoted('"', TokenKind::String, pos_);
    if (c == '\'') return read_quoted('\'', TokenKind::Char, pos_);
    if (c == ':' && peek(1) == ':') return push(TokenKind::Punct, pos_, 2);
    push(TokenKind::Punct, pos_, 1);
  }

  void push(TokenKind kind, std::size_t begin, std::size_t length) {
    tokens_.push_back({kind, std::string(src_.substr(begin, length)), line_, begin, begin + length});
    pos_ = begin + length;
  }

  void read_identifier_or_prefixed_literal() {
    std::size_t begin = pos_;
    while (is_identifier_char(peek())) ++pos_;
    std::string_view word = src_.substr(begin, pos_ - begin);
    static const std::set<std::string_view> raw_prefixes{"R", "u8R", "uR", "UR", "LR"};
    static const std::set<std::string_view> prefixes{"u8", "u", "U", "L"};
    if (peek() == '"' && raw_prefixes.count(word)) return read_raw_string(begin);
    if (peek() == '"' && prefixes.count(word)) return read_quoted('"', TokenKind::String, begin);
    if (peek() == '\'' && prefixes.count(word)) return read_quoted('\'', TokenKind::Char, begin);
    tokens_.push_back({TokenKind::Identifier, std::string(word), line_, begin, pos_});
  }

  // pp-number: digits, letters, '.', digit separators and exponent signs (1'000, 1e-5f, 0x1p+3).
  void read_number() {
    std::size_t begin = pos_;
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      bool exponent_sign = (c == '+' || c == '-') && std::string_view("eEpP").find(src_[pos_ - 1]) != std::string_view::npos;
      bool separator = c == '\'' && is_identifier_char(peek(1));
      if (!(is_identifier_char(c) || c == '.' || exponent_sign || separator)) break;
      ++pos_;
    }
    tokens_.push_back({TokenKind::Number, std::string(src_.substr(begin, pos_ - begin)), line_, begin, pos_});
  }

  // The literal starts at `begin` (its prefix), the opening quote is at pos_.
  void read_quoted(char quote, TokenKind kind, std::size_t begin) {
    int start_line = line_;
    ++pos_;
    while (pos_ < src_.size() && src_[pos_] != quote && src_[pos_] != '\n') {
      if (src_[pos_] == '\\' && pos_ + 1 < src_.size()) {
        if (src_[pos_ + 1] == '\n') ++line_;
        ++pos_;
      }
      ++pos_;
    }
    pos_ = std::min(pos_ + 1, src_.size());  // an unterminated literal ends at the line's end
    tokens_.push_back({kind, std::string(src_.substr(begin, pos_ - begin)), start_line, begin, pos_});
  }

  // R"delim( ... )delim": nothing inside is special, not even quotes or backslashes.
  void read_raw_string(std::size_t begin) {
    int start_line = line_;
    std::size_t open = src_.find('(', pos_);
    std::string closing = ")";
    if (open != std::string_view::npos) closing += std::string(src_.substr(pos_ + 1, open - pos_ - 1)) + "\"";
    std::size_t close = open == std::string_view::npos ? open : src_.find(closing, open);
    std::size_t end = close == std::string_view::npos ? src_.size() : close + closing.size();
    line_ += static_cast<int>(std::count(src_.begin() + static_cast<std::ptrdiff_t>(pos_),
                                         src_.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
    pos_ = end;
    tokens_.push_back({TokenKind::String, std::string(src_.substr(begin, end - begin)), start_line, begin, end});
  }

  std::string_view src_;
  std::size_t pos_ = 0;
  int line_;
  bool at_line_start_ = true;
  std::vector<Token> tokens_;
};

bool is_open_bracket(const Token& t) {
  return t.kind == TokenKind::Punct && std::string_view("([{<").find(t.text) != std::string_view::npos;
}
bool is_close_bracket(const Token& t) {
  return t.kind == TokenKind::Punct && std::string_view(")]}>").find(t.text) != std::string_view::npos;
}

}  // namespace

std::vector<Token> tokenize_c(std::string_view source, int first_line) { return CLexer(source, first_line).run(); }

bool is_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool is_token(const Token& token, std::string_view text) {
  return token.kind != TokenKind::String && token.kind != TokenKind::Char && token.text == text;
}

std::size_t skip_balanced(const std::vector<Token>& tokens, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < tokens.size(); ++i) {
    if (is_open_bracket(tokens[i])) ++depth;
    if (is_close_bracket(tokens[i]) && --depth == 0) return i + 1;
  }
  return tokens.size();
}

std::vector<std::vector<Token>> split_commas(const std::vector<Token>& tokens, std::size_t begin, std::size_t end) {
  std::vector<std::vector<Token>> parts(1);
  int depth = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const Token& t = tokens[i];
    if (is_open_bracket(t)) ++depth;
    if (is_close_bracket(t)) --depth;
    if (depth == 0 && is_token(t, ",")) {
      parts.emplace_back();
    } else {
      parts.back().push_back(t);
    }
  }
  if (parts.size() == 1 && parts[0].empty()) parts.clear();
  return parts;
}

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

}  // namespace kforge
