#include "task/expr.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kforge {
namespace {

using ::testing::HasSubstr;

const Bindings kVars{{"n", 1000}, {"BLOCK", 256}, {"ITEMS", 4}};

std::string error_of(const std::string& expression, const Bindings& bindings = kVars) {
  try {
    eval_expr(expression, bindings);
  } catch (const ExprError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Expr, IntegerArithmeticTruncatesLikeC) {
  EXPECT_EQ(eval_int("7 / 2", {}), 3);
  EXPECT_EQ(eval_int("-7 / 2", {}), -3);
  EXPECT_EQ(eval_int("7 % 3", {}), 1);
  EXPECT_EQ(eval_int("-7 % 3", {}), -1);
  EXPECT_EQ(eval_int("n / BLOCK", kVars), 3);
}

TEST(Expr, PrecedenceAndAssociativity) {
  EXPECT_EQ(eval_int("2 + 3 * 4", {}), 14);
  EXPECT_EQ(eval_int("(2 + 3) * 4", {}), 20);
  EXPECT_EQ(eval_int("10 - 4 - 3", {}), 3);
  EXPECT_EQ(eval_int("100 / 10 / 5", {}), 2);
  EXPECT_EQ(eval_int("2 ** 3 ** 2", {}), 512);  // right-associative
  EXPECT_EQ(eval_int("-2 ** 2", {}), -4);       // like Python: unary minus binds looser
  EXPECT_EQ(eval_int("2 ** -1 * 4", {}), 2);    // negative exponent gives a float
  EXPECT_EQ(eval_int("--3", {}), 3);
}

TEST(Expr, FloatsWhenAnyOperandIsFloat) {
  EXPECT_DOUBLE_EQ(eval_expr("7 / 2.0", {}), 3.5);
  EXPECT_DOUBLE_EQ(eval_expr("1e-3 * 2", {}), 0.002);
  EXPECT_DOUBLE_EQ(eval_expr(".5 + 1", {}), 1.5);
  EXPECT_DOUBLE_EQ(eval_expr("2.5e2", {}), 250.0);
  EXPECT_EQ(eval_int("2.0 * 3", {}), 6);  // integral float results are accepted
}

TEST(Expr, NonIntegerResultIsAnErrorForEvalInt) {
  try {
    eval_int("n / 3.0", kVars);
    FAIL() << "expected ExprError";
  } catch (const ExprError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'n / 3.0'"));
    EXPECT_THAT(e.what(), HasSubstr("not an integer"));
  }
}

TEST(Expr, Functions) {
  EXPECT_EQ(eval_int("ceil_div(n, BLOCK)", kVars), 4);
  EXPECT_EQ(eval_int("ceil_div(1024, 256)", {}), 4);
  EXPECT_EQ(eval_int("ceil_div(0, 256)", {}), 0);
  EXPECT_EQ(eval_int("ceil_div(-5, 2)", {}), -2);
  EXPECT_EQ(eval_int("min(3, BLOCK)", kVars), 3);
  EXPECT_EQ(eval_int("max(3, BLOCK)", kVars), 256);
  EXPECT_EQ(eval_int("pow2(10)", {}), 1024);
  EXPECT_EQ(eval_int("log2(1024)", {}), 10);
  EXPECT_EQ(eval_int("log2(1000)", {}), 9);  // rounds down
  EXPECT_EQ(eval_int("abs(-5)", {}), 5);
  EXPECT_DOUBLE_EQ(eval_expr("abs(-2.5)", {}), 2.5);
  EXPECT_EQ(eval_int("max(min(n, 512), 1) * 2", kVars), 1024);
}

TEST(Expr, ComparisonsAndLogic) {
  EXPECT_TRUE(eval_bool("BLOCK * ITEMS <= 1024", kVars));
  EXPECT_FALSE(eval_bool("BLOCK * ITEMS < 1024", kVars));
  EXPECT_TRUE(eval_bool("BLOCK == 256 && ITEMS != 3", kVars));
  EXPECT_TRUE(eval_bool("BLOCK > 1000 || ITEMS >= 4", kVars));
  EXPECT_TRUE(eval_bool("!(BLOCK > 1000)", kVars));
  EXPECT_FALSE(eval_bool("!BLOCK", kVars));
  EXPECT_TRUE(eval_bool("1 < 2 == 1", {}));   // relational binds tighter than equality
  EXPECT_TRUE(eval_bool("0 || 1 && 1", {}));  // && binds tighter than ||
  EXPECT_TRUE(eval_bool("n % BLOCK != 0", kVars));
}

TEST(Expr, ShortCircuitSkipsDivisionByZero) {
  EXPECT_FALSE(eval_bool("ITEMS == 0 && n / (ITEMS - 4) > 1", kVars));
  EXPECT_TRUE(eval_bool("ITEMS == 4 || n / (ITEMS - 4) > 1", kVars));
}

TEST(Expr, UnknownIdentifierIsReportedEvenInSkippedBranch) {
  EXPECT_THAT(error_of("0 && WARPS > 2"), HasSubstr("unknown identifier 'WARPS'"));
  EXPECT_THAT(error_of("1 || WARPS > 2"), HasSubstr("unknown identifier 'WARPS'"));
}

TEST(Expr, ErrorsNameTheExpressionAndTheProblem) {
  EXPECT_THAT(error_of("ceil_div(m, BLOCK)"), HasSubstr("expression 'ceil_div(m, BLOCK)': unknown identifier 'm'"));
  EXPECT_THAT(error_of("ceil_div(m, BLOCK)"), HasSubstr("known: BLOCK, ITEMS, n"));
  EXPECT_THAT(error_of("n +"), HasSubstr("expected a number, name or '(' at the end"));
  EXPECT_THAT(error_of("(n + 1"), HasSubstr("expected ')'"));
  EXPECT_THAT(error_of("n + 1)"), HasSubstr("unexpected ')'"));
  EXPECT_THAT(error_of("n $ 2"), HasSubstr("unexpected '$'"));
  EXPECT_THAT(error_of(""), HasSubstr("is empty"));
  EXPECT_THAT(error_of("   "), HasSubstr("is empty"));
  EXPECT_THAT(error_of("sqrt(n)"), HasSubstr("unknown function 'sqrt'"));
  EXPECT_THAT(error_of("min(n)"), HasSubstr("min() takes 2 arguments, got 1"));
  EXPECT_THAT(error_of("log2(0)"), HasSubstr("log2 of 0"));
  EXPECT_THAT(error_of("n / (BLOCK - 256)"), HasSubstr("division by zero"));
  EXPECT_THAT(error_of("n % 0"), HasSubstr("modulo by zero"));
  EXPECT_THAT(error_of("ceil_div(n, 0)"), HasSubstr("ceil_div by zero"));
  EXPECT_THAT(error_of("1.2.3"), HasSubstr("bad number '1.2.3'"));
  EXPECT_THAT(error_of("99999999999999999999"), HasSubstr("bad number"));
}

TEST(Expr, OverflowIsAnErrorNotGarbage) {
  EXPECT_THAT(error_of("9223372036854775807 + 1"), HasSubstr("integer overflow in +"));
  EXPECT_THAT(error_of("2 ** 64"), HasSubstr("integer overflow in **"));
  EXPECT_THAT(error_of("4294967296 * 4294967296"), HasSubstr("integer overflow in *"));
  EXPECT_EQ(eval_int("2 ** 62", {}), std::int64_t{1} << 62);
  EXPECT_EQ(eval_int("1 ** 1000000000000", {}), 1);
  EXPECT_EQ(eval_int("(-1) ** 1000000000001", {}), -1);
}

}  // namespace
}  // namespace kforge
