// The task model (task.h): names of its enums, default parameters, and the helpers every
// consumer of a task needs (bindings, element counts, constraints, tolerances, work). Reading a
// manifest into a Task is manifest_loader.cpp.
#include "task/task.h"

#include <algorithm>

#include "task/expr.h"

namespace kforge {

// ---------------------------------------------------------------------------------------------
// Enums

namespace {

template <typename Enum, std::size_t N>
std::optional<Enum> lookup(const std::array<std::pair<Enum, const char*>, N>& table, const std::string& text) {
  for (const auto& [value, name] : table)
    if (text == name) return value;
  return std::nullopt;
}

template <typename Enum, std::size_t N>
std::string name_of(const std::array<std::pair<Enum, const char*>, N>& table, Enum value) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return "?";
}

template <typename Enum, std::size_t N>
std::string all_names(const std::array<std::pair<Enum, const char*>, N>& table) {
  std::string names;
  for (const auto& entry : table) names += (names.empty() ? "" : " ") + std::string(entry.second);
  return names;
}

constexpr std::array<std::pair<DType, const char*>, 9> kDTypes{{{DType::F16, "f16"},
                                                                {DType::BF16, "bf16"},
                                                                {DType::F32, "f32"},
                                                                {DType::F64, "f64"},
                                                                {DType::I8, "i8"},
                                                                {DType::U8, "u8"},
                                                                {DType::I32, "i32"},
                                                                {DType::U32, "u32"},
                                                                {DType::I64, "i64"}}};
constexpr std::array<std::pair<ArgRole, const char*>, 4> kRoles{{{ArgRole::Input, "input"},
                                                                 {ArgRole::Output, "output"},
                                                                 {ArgRole::InOut, "inout"},
                                                                 {ArgRole::Scalar, "scalar"}}};

}  // namespace

std::string to_string(DType dtype) { return name_of(kDTypes, dtype); }
std::string to_string(ArgRole role) { return name_of(kRoles, role); }
std::optional<DType> parse_dtype(const std::string& text) { return lookup(kDTypes, text); }
std::optional<ArgRole> parse_role(const std::string& text) { return lookup(kRoles, text); }
std::string dtype_names() { return all_names(kDTypes); }
std::string role_names() { return all_names(kRoles); }

std::size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::I8:
    case DType::U8:
      return 1;
    case DType::F16:
    case DType::BF16:
      return 2;
    case DType::F32:
    case DType::I32:
    case DType::U32:
      return 4;
    case DType::F64:
    case DType::I64:
      return 8;
  }
  return 0;
}

bool is_floating(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F32 || dtype == DType::F64;
}

ParamValues Task::default_params() const {
  ParamValues values;
  for (const auto& param : params) values[param.name] = param.default_value;
  return values;
}


// ---------------------------------------------------------------------------------------------
// Helpers for consumers of a task

Bindings bindings_for(const Task& task, const ProblemSize& size, const ParamValues& params) {
  Bindings bindings = task.default_params();
  for (const auto& [name, value] : params) bindings[name] = value;
  for (const auto& [name, value] : size.vars) bindings[name] = value;
  return bindings;
}

std::int64_t element_count(const ArgSpec& arg, const Bindings& bindings) {
  if (arg.role == ArgRole::Scalar) return 1;
  std::int64_t count = 1;
  for (const auto& extent : arg.shape) {
    std::int64_t value = eval_int(extent, bindings);
    if (value < 0) throw TaskError("argument '" + arg.name + "': shape '" + extent + "' is negative (" + std::to_string(value) + ")");
    if (__builtin_mul_overflow(count, value, &count))
      throw TaskError("argument '" + arg.name + "': element count overflows 64 bits");
  }
  return count;
}

bool satisfies_constraints(const Task& task, const ParamValues& params, const Bindings& size_vars) {
  Bindings bindings = task.default_params();
  for (const auto& [name, value] : params) bindings[name] = value;
  for (const auto& [name, value] : size_vars) bindings[name] = value;
  return std::all_of(task.constraints.begin(), task.constraints.end(),
                     [&](const std::string& rule) { return eval_bool(rule, bindings); });
}

Tolerance tolerance_for(const Task& task, DType dtype) {
  if (task.tolerance) return *task.tolerance;
  switch (dtype) {
    case DType::F16:
      return {1e-2, 1e-2};
    case DType::BF16:
      return {2e-2, 2e-2};
    case DType::F32:
      return {1e-4, 1e-4};
    case DType::F64:
      return {1e-9, 1e-9};
    case DType::I8:
    case DType::U8:
    case DType::I32:
    case DType::U32:
    case DType::I64:
      return {0, 0};
  }
  return {0, 0};
}

// Without a manifest formula: each buffer is moved once, an inout buffer twice (read and written).
double bytes_moved(const Task& task, const Bindings& bindings) {
  if (!task.bytes_expr.empty()) return eval_expr(task.bytes_expr, bindings);
  double total = 0;
  for (const auto& arg : task.args) {
    if (arg.role == ArgRole::Scalar) continue;
    double bytes = static_cast<double>(element_count(arg, bindings)) * static_cast<double>(dtype_size(arg.dtype));
    total += arg.role == ArgRole::InOut ? 2 * bytes : bytes;
  }
  return total;
}

std::optional<double> flops(const Task& task, const Bindings& bindings) {
  if (task.flops_expr.empty()) return std::nullopt;
  return eval_expr(task.flops_expr, bindings);
}

}  // namespace kforge
