#include "task/expr.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>
#include <vector>

namespace kforge {
namespace {

// A value keeps integer-ness so that `n / BLOCK` truncates like the C++ the kernels are written in.
struct Value {
  bool is_int = true;
  std::int64_t i = 0;
  double d = 0;

  static Value of_int(std::int64_t v) { return {true, v, static_cast<double>(v)}; }
  static Value of_double(double v) { return {false, 0, v}; }
  double as_double() const { return is_int ? static_cast<double>(i) : d; }
  bool truthy() const { return is_int ? i != 0 : d != 0; }
};

std::string known_names(const Bindings& bindings) {
  if (bindings.empty()) return "none";
  std::string names;
  for (const auto& [name, value] : bindings) names += (names.empty() ? "" : ", ") + name;
  return names;
}

// Recursive descent, one function per precedence level (lowest first):
//   or: and ('||' and)*          and: equality ('&&' equality)*
//   equality: relational (('=='|'!=') relational)*
//   relational: additive (('<'|'<='|'>'|'>=') additive)*
//   additive: term (('+'|'-') term)*      term: unary (('*'|'/'|'%') unary)*
//   unary: ('-'|'+'|'!') unary | power    power: primary ('**' unary)?   (right-associative)
//   primary: number | identifier | function '(' args ')' | '(' or ')'
// When `evaluating_` is false (the unevaluated side of && or ||) the parser still checks
// syntax and identifiers, so a typo is reported whatever the values are.
class Parser {
 public:
  Parser(const std::string& text, const Bindings& bindings) : text_(text), bindings_(bindings) {}

  Value parse() {
    skip_space();
    if (at_end()) fail("is empty");
    Value v = parse_or();
    skip_space();
    if (!at_end()) fail("unexpected '" + std::string(1, text_[pos_]) + "' at offset " + std::to_string(pos_));
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw ExprError("expression '" + text_ + "': " + problem);
  }

  bool at_end() const { return pos_ >= text_.size(); }
  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  // Consumes `op` if it comes next; `not_followed_by` stops "<" from eating the start of "<=".
  bool accept(std::string_view op, char not_followed_by = '\0') {
    skip_space();
    if (text_.compare(pos_, op.size(), op) != 0) return false;
    std::size_t after = pos_ + op.size();
    if (not_followed_by != '\0' && after < text_.size() && text_[after] == not_followed_by) return false;
    pos_ = after;
    return true;
  }
  void expect(char c) {
    if (!accept(std::string_view(&c, 1))) fail(std::string("expected '") + c + "'" + where());
  }
  std::string where() const {
    return at_end() ? " at the end" : " at offset " + std::to_string(pos_);
  }

  Value parse_or() {
    Value left = parse_and();
    while (accept("||")) {
      bool saved = evaluating_;
      if (left.truthy()) evaluating_ = false;
      Value right = parse_and();
      evaluating_ = saved;
      left = Value::of_int(left.truthy() || right.truthy());
    }
    return left;
  }

  Value parse_and() {
    Value left = parse_equality();
    while (accept("&&")) {
      bool saved = evaluating_;
      if (!left.truthy()) evaluating_ = false;
      Value right = parse_equality();
      evaluating_ = saved;
      left = Value::of_int(left.truthy() && right.truthy());
    }
    return left;
  }

  Value parse_equality() {
    Value left = parse_relational();
    for (;;) {
      if (accept("==")) left = compare(left, parse_relational(), [](auto a, auto b) { return a == b; });
      else if (accept("!=")) left = compare(left, parse_relational(), [](auto a, auto b) { return a != b; });
      else return left;
    }
  }

  Value parse_relational() {
    Value left = parse_additive();
    for (;;) {
      if (accept("<=")) left = compare(left, parse_additive(), [](auto a, auto b) { return a <= b; });
      else if (accept(">=")) left = compare(left, parse_additive(), [](auto a, auto b) { return a >= b; });
      else if (accept("<")) left = compare(left, parse_additive(), [](auto a, auto b) { return a < b; });
      else if (accept(">")) left = compare(left, parse_additive(), [](auto a, auto b) { return a > b; });
      else return left;
    }
  }

  template <typename Op>
  static Value compare(const Value& a, const Value& b, Op op) {
    if (a.is_int && b.is_int) return Value::of_int(op(a.i, b.i));
    return Value::of_int(op(a.as_double(), b.as_double()));
  }

  Value parse_additive() {
    Value left = parse_term();
    for (;;) {
      if (accept("+")) left = add(left, parse_term(), +1);
      else if (accept("-")) left = add(left, parse_term(), -1);
      else return left;
    }
  }

  Value parse_term() {
    Value left = parse_unary();
    for (;;) {
      if (accept("*", '*')) left = multiply(left, parse_unary());
      else if (accept("/")) left = divide(left, parse_unary());
      else if (accept("%")) left = modulo(left, parse_unary());
      else return left;
    }
  }

  Value parse_unary() {
    if (accept("-")) return negate(parse_unary());
    if (accept("+")) return parse_unary();
    if (accept("!", '=')) return Value::of_int(!parse_unary().truthy());
    return parse_power();
  }

  Value parse_power() {
    Value base = parse_primary();
    if (accept("**")) return power(base, parse_unary());
    return base;
  }

  Value parse_primary() {
    skip_space();
    if (at_end()) fail("expected a number, name or '('" + where());
    char c = text_[pos_];
    if (accept("(")) {
      Value v = parse_or();
      expect(')');
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return parse_number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::string name = parse_identifier();
      if (accept("(")) return call(name);
      return lookup(name);
    }
    fail("unexpected '" + std::string(1, c) + "'" + where());
  }

  Value parse_number() {
    std::size_t start = pos_;
    bool is_float = false;
    while (!at_end()) {
      char c = text_[pos_];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (c == '.') {
        is_float = true;
        ++pos_;
      } else if ((c == 'e' || c == 'E') && pos_ > start) {
        is_float = true;
        ++pos_;
        if (!at_end() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      } else {
        break;
      }
    }
    std::string digits = text_.substr(start, pos_ - start);
    std::size_t used = 0;
    try {
      if (is_float) {
        double d = std::stod(digits, &used);
        if (used == digits.size()) return Value::of_double(d);
      } else {
        std::int64_t v = std::stoll(digits, &used);
        if (used == digits.size()) return Value::of_int(v);
      }
    } catch (const std::exception&) {
      // Falls through to the error below: out of range or malformed.
    }
    fail("bad number '" + digits + "'");
  }

  std::string parse_identifier() {
    std::size_t start = pos_;
    while (!at_end() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  Value lookup(const std::string& name) {
    auto it = bindings_.find(name);
    if (it == bindings_.end()) fail("unknown identifier '" + name + "' (known: " + known_names(bindings_) + ")");
    return Value::of_int(it->second);
  }

  Value call(const std::string& name) {
    static const std::map<std::string, std::size_t> arities{{"ceil_div", 2}, {"min", 2},  {"max", 2},
                                                            {"pow2", 1},     {"log2", 1}, {"abs", 1}};
    auto arity = arities.find(name);
    if (arity == arities.end()) fail("unknown function '" + name + "'; use ceil_div min max pow2 log2 abs");
    std::vector<Value> args;
    if (!accept(")")) {
      do args.push_back(parse_or());
      while (accept(","));
      expect(')');
    }
    if (args.size() != arity->second)
      fail(name + "() takes " + std::to_string(arity->second) + " argument" + (arity->second == 1 ? "" : "s") +
           ", got " + std::to_string(args.size()));
    if (name == "ceil_div") return ceil_div(args[0], args[1]);
    if (name == "min") return pick(args[0], args[1], true);
    if (name == "max") return pick(args[0], args[1], false);
    if (name == "pow2") return power(Value::of_int(2), args[0]);
    if (name == "log2") return log2(args[0]);
    return args[0].is_int ? negate_if_negative(args[0]) : Value::of_double(std::fabs(args[0].d));  // abs
  }

  // Arithmetic. Skipped operands (evaluating_ == false) may hold anything, so checks that
  // could throw on their values are only made while evaluating.
  Value checked(bool overflowed, std::int64_t result, const char* what) {
    if (overflowed && evaluating_) fail(std::string("integer overflow in ") + what);
    return Value::of_int(result);
  }

  Value zero_divisor(const char* problem) {
    if (evaluating_) fail(problem);
    return Value::of_int(0);
  }

  Value add(const Value& a, const Value& b, int sign) {
    if (!(a.is_int && b.is_int)) return Value::of_double(a.as_double() + sign * b.as_double());
    std::int64_t r = 0;
    bool overflow = sign > 0 ? __builtin_add_overflow(a.i, b.i, &r) : __builtin_sub_overflow(a.i, b.i, &r);
    return checked(overflow, r, sign > 0 ? "+" : "-");
  }

  Value multiply(const Value& a, const Value& b) {
    if (!(a.is_int && b.is_int)) return Value::of_double(a.as_double() * b.as_double());
    std::int64_t r = 0;
    bool overflow = __builtin_mul_overflow(a.i, b.i, &r);
    return checked(overflow, r, "*");
  }

  Value divide(const Value& a, const Value& b) {
    if (!(a.is_int && b.is_int)) return Value::of_double(a.as_double() / b.as_double());
    if (b.i == 0) return zero_divisor("division by zero");
    if (a.i == std::numeric_limits<std::int64_t>::min() && b.i == -1) return checked(true, 0, "/");
    return Value::of_int(a.i / b.i);
  }

  Value modulo(const Value& a, const Value& b) {
    if (!(a.is_int && b.is_int)) return Value::of_double(std::fmod(a.as_double(), b.as_double()));
    if (b.i == 0) return zero_divisor("modulo by zero");
    if (b.i == -1) return Value::of_int(0);
    return Value::of_int(a.i % b.i);
  }

  Value ceil_div(const Value& a, const Value& b) {
    if (!(a.is_int && b.is_int)) return Value::of_double(std::ceil(a.as_double() / b.as_double()));
    if (b.i == 0) return zero_divisor("ceil_div by zero");
    if (b.i == -1) return negate(a);
    std::int64_t q = a.i / b.i;
    bool has_remainder = a.i % b.i != 0;
    bool positive_quotient = (a.i < 0) == (b.i < 0);
    return Value::of_int(q + (has_remainder && positive_quotient ? 1 : 0));
  }

  Value negate(const Value& a) {
    if (!a.is_int) return Value::of_double(-a.d);
    if (a.i == std::numeric_limits<std::int64_t>::min()) return checked(true, 0, "unary -");
    return Value::of_int(-a.i);
  }

  Value negate_if_negative(const Value& a) { return a.i < 0 ? negate(a) : a; }

  static Value pick(const Value& a, const Value& b, bool smaller) {
    if (a.is_int && b.is_int) return Value::of_int(smaller ? std::min(a.i, b.i) : std::max(a.i, b.i));
    return Value::of_double(smaller ? std::min(a.as_double(), b.as_double()) : std::max(a.as_double(), b.as_double()));
  }

  Value power(const Value& base, const Value& exponent) {
    if (!(base.is_int && exponent.is_int) || exponent.i < 0)
      return Value::of_double(std::pow(base.as_double(), exponent.as_double()));
    if (base.i == -1) return Value::of_int(exponent.i % 2 == 0 ? 1 : -1);
    std::int64_t result = 1;
    bool overflow = false;
    for (std::int64_t k = 0; k < exponent.i && !overflow; ++k) {
      overflow = __builtin_mul_overflow(result, base.i, &result);
      if (result == 0 || result == 1) break;  // 0**k and 1**k never change: skip huge exponents.
    }
    return checked(overflow, result, "**");
  }

  // Integer log2 rounds down, matching how block-size exponents are computed in kernels.
  Value log2(const Value& a) {
    if (!a.is_int) return Value::of_double(std::log2(a.d));
    if (a.i <= 0) {
      if (evaluating_) fail("log2 of " + std::to_string(a.i) + " (needs a positive value)");
      return Value::of_int(0);
    }
    return Value::of_int(63 - __builtin_clzll(static_cast<unsigned long long>(a.i)));
  }

  const std::string& text_;
  const Bindings& bindings_;
  std::size_t pos_ = 0;
  bool evaluating_ = true;
};

}  // namespace

double eval_expr(const std::string& expression, const Bindings& bindings) {
  return Parser(expression, bindings).parse().as_double();
}

std::int64_t eval_int(const std::string& expression, const Bindings& bindings) {
  Value v = Parser(expression, bindings).parse();
  if (v.is_int) return v.i;
  // A float result is accepted only when it is exactly an integer, e.g. "2.0 * n" with even n.
  if (std::isfinite(v.d) && std::trunc(v.d) == v.d && std::fabs(v.d) < 9.2e18) return static_cast<std::int64_t>(v.d);
  throw ExprError("expression '" + expression + "': result " + std::to_string(v.d) +
                  " is not an integer; use integer operands or ceil_div()");
}

bool eval_bool(const std::string& expression, const Bindings& bindings) {
  return Parser(expression, bindings).parse().truthy();
}

}  // namespace kforge
