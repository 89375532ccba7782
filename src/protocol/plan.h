// Resolved plans: what a worker needs to know about a task, with every expression of the
// manifest already evaluated by the orchestrator. Workers never read a manifest (and so read
// no project files at all): the task's arguments arrive as a TaskPlan, and each variant at one
// problem size as a LaunchPlan of plain numbers (element counts, scalar values, launch
// geometry). docs/WORKER_PROTOCOL.md describes the JSON; plan_resolve.h builds the plans.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "task/task.h"

namespace kforge {

// One kernel argument, without its expressions.
struct ArgPlan {
  std::string name;
  DType dtype = DType::F32;
  ArgRole role = ArgRole::Input;
  std::string init = "uniform(-1,1)";     // distribution of inputs and inouts
  std::vector<std::string> check_inits;  // extra distributions checks draw from
  bool adversarial = true;                // built-in adversarial draws apply
  Tolerance tolerance;                    // manifest (or dtype default) tolerance of this output
};

// How the Python worker builds and launches a task (src/backend/python, python/).
enum class PythonTaskKind { None, Args, Launcher, KernelBench };

// Everything about a task that does not depend on a problem size or on parameters.
struct TaskPlan {
  std::string name;
  Language language = Language::Cuda;
  std::vector<ArgPlan> args;
  // Tolerance by dtype name ("f32" -> atol, rtol): outputs a Python harness returns without an
  // argument declaration (launchers, KernelBench models) are compared with these.
  std::map<std::string, Tolerance> dtype_tolerances;
  // Problem-size variables by size name, in the manifest's order (input builders and
  // KernelBench get_inputs take them; native workers use LaunchPlans instead).
  std::vector<std::pair<std::string, Bindings>> sizes;
  // Python tasks only.
  PythonTaskKind python_kind = PythonTaskKind::None;
  std::string kernel;                 // the task's entry point
  std::string launcher;               // [task] launcher, or empty
  std::string inputs_file;            // input builder: file and function
  std::string inputs_function;
  std::string problem_file;           // KernelBench: the problem module (Model, get_inputs)
  std::vector<std::string> sources;   // the task's own kernel files (a variant equal to one is original)
  ParamValues default_params;

  Tolerance tolerance(DType dtype) const;  // dtype_tolerances, or exact for unknown dtypes
};

// A scalar argument's value: integers stay exact (64 bits), floats are doubles.
struct ScalarValue {
  bool is_float = false;
  std::int64_t i = 0;
  double f = 0;
};

// One variant (its parameters) at one problem size: every expression evaluated.
struct LaunchPlan {
  std::string size;
  std::vector<std::vector<std::int64_t>> shapes;  // per argument; empty for scalars
  std::vector<ScalarValue> scalars;               // per argument; meaningful for scalars only
  std::vector<double> fan_in;                     // per argument: input elements per element (outputs)
  LaunchDims dims;

  std::int64_t count(std::size_t arg) const;      // elements of buffer argument `arg`
};

nlohmann::json to_json(const ArgPlan& arg);
ArgPlan arg_plan_from_json(const nlohmann::json& json);
nlohmann::json to_json(const TaskPlan& plan);
TaskPlan task_plan_from_json(const nlohmann::json& json);
nlohmann::json to_json(const LaunchPlan& plan);
LaunchPlan launch_plan_from_json(const nlohmann::json& json);
std::string to_string(PythonTaskKind kind);

}  // namespace kforge
