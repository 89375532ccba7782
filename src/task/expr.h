// Integer/float arithmetic expressions used in manifests: shapes, launch geometry, constraints.
#pragma once

#include <cstdint>
#include <string>

#include "task/task.h"

namespace kforge {

// Grammar: numbers, identifiers (looked up in bindings), + - * / % ** ( ),
// comparisons (< <= > >= == !=), && || !, and functions ceil_div(a,b) min(a,b) max(a,b)
// pow2(a) log2(a) abs(a). Integer arithmetic when all operands are integers, `/` truncates.
// Throws ExprError naming the expression and the unknown identifier or syntax problem.
double eval_expr(const std::string& expression, const Bindings& bindings);
std::int64_t eval_int(const std::string& expression, const Bindings& bindings);
bool eval_bool(const std::string& expression, const Bindings& bindings);

struct ExprError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace kforge
