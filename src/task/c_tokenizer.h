// Tokenizer for the C family (CUDA, HIP, OpenCL C): kernel detection reads signatures with it
// and the search's source transforms find the places they rewrite. Comments vanish; string
// and char literals become single tokens so their contents never look like code; each
// preprocessor line (continuations joined) becomes one Directive token.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kforge {

enum class TokenKind { Identifier, Number, String, Char, Punct, Directive };

struct Token {
  TokenKind kind = TokenKind::Punct;
  std::string text;         // as written; a Directive's continuations are joined, comments dropped
  int line = 0;             // 1-based line where the token starts
  std::size_t offset = 0;   // byte offset of its first character in the tokenized text
  std::size_t end = 0;      // byte offset just past its last character
};

// Tokens of `source`; lines are counted from `first_line` (for text cut out of a larger file).
std::vector<Token> tokenize_c(std::string_view source, int first_line = 1);

bool is_identifier_start(char c);
bool is_identifier_char(char c);

// Whether the token is the code `text` (never true for the inside of a string or char literal).
bool is_token(const Token& token, std::string_view text);

// Index just past the bracket that closes the one at `open` (which must be ( [ { or <).
std::size_t skip_balanced(const std::vector<Token>& tokens, std::size_t open);

// Joins tokens[begin, end) back into readable text: a space only between two words, after
// commas and around '='.
std::string join_tokens(const std::vector<Token>& tokens, std::size_t begin, std::size_t end);

// Splits tokens[begin, end) at top-level commas.
std::vector<std::vector<Token>> split_commas(const std::vector<Token>& tokens, std::size_t begin, std::size_t end);

}  // namespace kforge
