// JSON mapping of the resolved plans (docs/WORKER_PROTOCOL.md "Plans"), in one place.
#include "protocol/plan.h"

#include <stdexcept>

namespace kforge {
namespace {
using nlohmann::json;

template <typename T>
T parsed(const std::optional<T>& value, const std::string& text, const char* what) {
  if (!value) throw std::invalid_argument(std::string("worker protocol: unknown ") + what + " '" + text + "'");
  return *value;
}

json tolerance_json(const Tolerance& t) { return {{"atol", t.atol}, {"rtol", t.rtol}}; }
Tolerance tolerance_from(const json& j) { return {j.value("atol", 0.0), j.value("rtol", 0.0)}; }

const char* const kPythonKinds[] = {"", "args", "launcher", "kernelbench"};
}  // namespace

std::string to_string(PythonTaskKind kind) { return kPythonKinds[static_cast<int>(kind)]; }

Tolerance TaskPlan::tolerance(DType dtype) const {
  const auto it = dtype_tolerances.find(kforge::to_string(dtype));
  return it == dtype_tolerances.end() ? Tolerance{} : it->second;
}

std::int64_t LaunchPlan::count(std::size_t arg) const {
  if (arg >= shapes.size()) return 0;
  std::int64_t n = 1;  // an empty shape is one element, as in the manifest
  for (std::int64_t d : shapes[arg]) n *= d;
  return n;
}

json to_json(const ArgPlan& arg) {
  return {{"name", arg.name},   {"dtype", to_string(arg.dtype)},   {"role", to_string(arg.role)},
          {"init", arg.init},   {"check_inits", arg.check_inits}, {"adversarial", arg.adversarial},
          {"tolerance", tolerance_json(arg.tolerance)}};
}

ArgPlan arg_plan_from_json(const json& j) {
  ArgPlan arg;
  arg.name = j.at("name");
  arg.dtype = parsed(parse_dtype(j.at("dtype")), j.at("dtype"), "dtype");
  arg.role = parsed(parse_role(j.at("role")), j.at("role"), "role");
  arg.init = j.value("init", arg.init);
  arg.check_inits = j.value("check_inits", std::vector<std::string>{});
  arg.adversarial = j.value("adversarial", true);
  if (j.contains("tolerance")) arg.tolerance = tolerance_from(j.at("tolerance"));
  return arg;
}

json to_json(const TaskPlan& plan) {
  json args = json::array(), tolerances = json::object(), sizes = json::array(), params = json::object();
  for (const auto& arg : plan.args) args.push_back(to_json(arg));
  for (const auto& [dtype, t] : plan.dtype_tolerances) tolerances[dtype] = tolerance_json(t);
  for (const auto& [name, vars] : plan.sizes) sizes.push_back({{"name", name}, {"vars", vars}});
  for (const auto& [name, value] : plan.default_params) params[name] = value;
  json out = {{"name", plan.name},   {"language", to_string(plan.language)}, {"args", args},
              {"dtype_tolerances", tolerances}, {"sizes", sizes}};
  if (plan.python_kind != PythonTaskKind::None) {
    out["python"] = {{"kind", to_string(plan.python_kind)}, {"kernel", plan.kernel},
                     {"launcher", plan.launcher},           {"inputs_file", plan.inputs_file},
                     {"inputs_function", plan.inputs_function}, {"problem_file", plan.problem_file},
                     {"sources", plan.sources},             {"default_params", params}};
  }
  return out;
}

TaskPlan task_plan_from_json(const json& j) {
  TaskPlan plan;
  plan.name = j.value("name", "");
  plan.language = parsed(parse_language(j.at("language")), j.at("language"), "language");
  for (const auto& arg : j.at("args")) plan.args.push_back(arg_plan_from_json(arg));
  const json tolerances = j.value("dtype_tolerances", json::object());  // items() needs a live object
  for (const auto& [dtype, t] : tolerances.items()) plan.dtype_tolerances[dtype] = tolerance_from(t);
  for (const auto& size : j.value("sizes", json::array()))
    plan.sizes.emplace_back(size.at("name"), size.at("vars").get<Bindings>());
  if (j.contains("python")) {
    const json& p = j.at("python");
    const std::string kind = p.at("kind");
    for (int k = 1; k < 4; ++k)
      if (kind == kPythonKinds[k]) plan.python_kind = static_cast<PythonTaskKind>(k);
    plan.kernel = p.value("kernel", "");
    plan.launcher = p.value("launcher", "");
    plan.inputs_file = p.value("inputs_file", "");
    plan.inputs_function = p.value("inputs_function", "");
    plan.problem_file = p.value("problem_file", "");
    plan.sources = p.value("sources", std::vector<std::string>{});
    plan.default_params = p.value("default_params", json::object()).get<ParamValues>();
  }
  return plan;
}

json to_json(const LaunchPlan& plan) {
  json scalars = json::array();
  for (const auto& s : plan.scalars) {
    if (s.is_float) scalars.push_back(s.f);
    else scalars.push_back(s.i);
  }
  return {{"size", plan.size},
          {"shapes", plan.shapes},
          {"scalars", scalars},
          {"fan_in", plan.fan_in},
          {"grid", plan.dims.grid},
          {"block", plan.dims.block},
          {"shared_mem", plan.dims.shared_mem_bytes}};
}

LaunchPlan launch_plan_from_json(const json& j) {
  LaunchPlan plan;
  plan.size = j.at("size");
  plan.shapes = j.at("shapes").get<std::vector<std::vector<std::int64_t>>>();
  for (const auto& s : j.at("scalars")) {
    ScalarValue value;
    value.is_float = s.is_number_float();
    if (value.is_float) value.f = s.get<double>();
    else if (s.is_number()) value.i = s.get<std::int64_t>();
    value.f = value.is_float ? value.f : static_cast<double>(value.i);
    plan.scalars.push_back(value);
  }
  plan.fan_in = j.value("fan_in", std::vector<double>(plan.shapes.size(), 1.0));
  plan.dims.grid = j.at("grid").get<std::array<std::int64_t, 3>>();
  plan.dims.block = j.at("block").get<std::array<std::int64_t, 3>>();
  plan.dims.shared_mem_bytes = j.value("shared_mem", std::int64_t{0});
  if (plan.scalars.size() != plan.shapes.size() || plan.fan_in.size() != plan.shapes.size())
    throw std::invalid_argument("worker protocol: a launch plan's shapes, scalars and fan_in differ in length");
  return plan;
}

}  // namespace kforge
