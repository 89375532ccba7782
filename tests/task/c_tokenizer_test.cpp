#include <gtest/gtest.h>

#include "task/c_tokenizer.h"

namespace kforge {
namespace {

TEST(CTokenizer, OffsetsPointAtTheTokensInTheSource) {
  const std::string source = "/* float* x */ void k(const float* a,\n  int n) { \"s*\"; }\n#define X \\\n 1\n";
  for (const Token& token : tokenize_c(source)) {
    if (token.kind == TokenKind::Directive) {
      EXPECT_EQ(source.substr(token.offset, token.end - token.offset), "#define X \\\n 1");
    } else {
      EXPECT_EQ(source.substr(token.offset, token.end - token.offset), token.text);
    }
  }
}

TEST(CTokenizer, CommentsAndLiteralsHideTheirContents) {
  const auto tokens = tokenize_c("a /* b */ \"c d\" // e\n'f' g");
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[1].kind, TokenKind::String);
  EXPECT_FALSE(is_token(tokens[1], "\"c d\""));  // a literal never matches code
  EXPECT_EQ(tokens[3].text, "g");
  EXPECT_EQ(tokens[3].line, 2);
}

TEST(CTokenizer, SplitsAtTopLevelCommasOnly) {
  const auto tokens = tokenize_c("(a, f(b, c), d[1, 2])");
  const std::size_t close = skip_balanced(tokens, 0);
  EXPECT_EQ(close, tokens.size());
  EXPECT_EQ(split_commas(tokens, 1, close - 1).size(), 3u);
}

}  // namespace
}  // namespace kforge
