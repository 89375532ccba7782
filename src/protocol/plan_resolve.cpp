// Task -> TaskPlan / LaunchPlan: every manifest expression evaluated in the orchestrator.
#include "protocol/plan_resolve.h"

#include <algorithm>

#include "task/expr.h"

namespace kforge {
namespace {

std::vector<std::int64_t> shape_of(const ArgSpec& arg, const Bindings& bindings) {
  std::vector<std::int64_t> dims;
  for (const auto& extent : arg.shape) {
    const std::int64_t value = eval_int(extent, bindings);
    if (value < 0)
      throw TaskError("argument '" + arg.name + "': shape '" + extent + "' is negative (" + std::to_string(value) + ")");
    dims.push_back(value);
  }
  element_count(arg, bindings);  // the overflow check lives there
  return dims;
}

ScalarValue scalar_of(const ArgSpec& arg, const Bindings& bindings) {
  ScalarValue value;
  value.is_float = arg.dtype == DType::F32 || arg.dtype == DType::F64;  // others are passed as integers
  if (value.is_float) value.f = eval_expr(arg.value, bindings);
  else value.i = eval_int(arg.value, bindings);
  return value;
}

// Float elements of the inputs and inouts per element of output `output`: the length of the
// sums it may hold (check_tolerance.h uses it for the rounding floor).
double fan_in(const Task& task, const LaunchPlan& plan, std::size_t output) {
  double inputs = 0;
  for (std::size_t i = 0; i < task.args.size(); ++i) {
    const ArgSpec& arg = task.args[i];
    if ((arg.role == ArgRole::Input || arg.role == ArgRole::InOut) && is_floating(arg.dtype))
      inputs += static_cast<double>(plan.count(i));
  }
  const double outputs = static_cast<double>(std::max<std::int64_t>(1, plan.count(output)));
  return std::max(1.0, inputs / outputs);
}

LaunchDims dims_of(const Task& task, const Bindings& bindings) {
  LaunchDims dims;
  for (int d = 0; d < 3; ++d) {
    dims.grid[d] = eval_int(task.launch.grid[d], bindings);
    dims.block[d] = eval_int(task.launch.block[d], bindings);
    if (dims.grid[d] <= 0 || dims.block[d] <= 0)
      throw TaskError(task.manifest_path.string() + ": [launch] dimension " + std::to_string(d) +
                      " evaluates to grid " + std::to_string(dims.grid[d]) + ", block " +
                      std::to_string(dims.block[d]) + "; both must be positive for every size");
  }
  dims.shared_mem_bytes = eval_int(task.launch.shared_mem, bindings);
  return dims;
}

PythonTaskKind python_kind(const Task& task) {
  if (task.kernel.language == Language::PyTorch) return PythonTaskKind::KernelBench;
  if (task.kernel.language != Language::Triton) return PythonTaskKind::None;
  return task.harness ? PythonTaskKind::Launcher : PythonTaskKind::Args;
}
}  // namespace

const ProblemSize& find_size(const Task& task, const std::string& name) {
  for (const auto& size : task.sizes)
    if (size.name == name) return size;
  throw TaskError(task.manifest_path.string() + ": no problem size named '" + name + "'");
}

TaskPlan plan_task(const Task& task) {
  TaskPlan plan;
  plan.name = task.name;
  plan.language = task.kernel.language;
  for (const auto& arg : task.args)
    plan.args.push_back({arg.name, arg.dtype, arg.role, arg.init, arg.check_inits, arg.adversarial,
                         tolerance_for(task, arg.dtype)});
  for (DType dtype : {DType::F16, DType::BF16, DType::F32, DType::F64, DType::I8, DType::U8, DType::I32,
                      DType::U32, DType::I64})
    plan.dtype_tolerances[to_string(dtype)] = tolerance_for(task, dtype);
  for (const auto& size : task.sizes) plan.sizes.emplace_back(size.name, size.vars);
  plan.python_kind = python_kind(task);
  if (plan.python_kind == PythonTaskKind::None) return plan;
  plan.kernel = task.kernel.kernel;
  plan.sources = {task.kernel.source.string()};
  plan.default_params = task.default_params();
  if (plan.python_kind == PythonTaskKind::KernelBench) plan.problem_file = task.kernel.source.string();
  if (task.harness) {
    plan.launcher = task.harness->launcher;
    plan.inputs_file = task.harness->inputs_source.string();
    plan.inputs_function = task.harness->inputs_function;
  }
  return plan;
}

LaunchPlan plan_launch(const Task& task, const ProblemSize& size, const ParamValues& params) {
  const Bindings bindings = bindings_for(task, size, params);
  LaunchPlan plan;
  plan.size = size.name;
  for (const auto& arg : task.args) {
    plan.shapes.push_back(arg.role == ArgRole::Scalar ? std::vector<std::int64_t>{} : shape_of(arg, bindings));
    plan.scalars.push_back(arg.role == ArgRole::Scalar ? scalar_of(arg, bindings) : ScalarValue{});
  }
  for (std::size_t i = 0; i < task.args.size(); ++i)
    plan.fan_in.push_back(task.args[i].role == ArgRole::Output || task.args[i].role == ArgRole::InOut
                              ? fan_in(task, plan, i)
                              : 1.0);
  if (!task.harness && task.kernel.language != Language::PyTorch) plan.dims = dims_of(task, bindings);
  return plan;
}

}  // namespace kforge
