// The task model: what a kforge.toml manifest describes (see docs/TASK_FORMAT.md).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "task/languages.h"

namespace kforge {

enum class DType { F16, BF16, F32, F64, I8, U8, I32, U32, I64 };
enum class ArgRole { Input, Output, InOut, Scalar };

std::string to_string(DType dtype);
std::string to_string(ArgRole role);
std::optional<DType> parse_dtype(const std::string& text);
std::optional<ArgRole> parse_role(const std::string& text);
std::string dtype_names();  // "f16 bf16 f32 ...": for messages that list the choices
std::string role_names();   // "input output inout scalar"
std::size_t dtype_size(DType dtype);
bool is_floating(DType dtype);

// Values of named integer variables: problem-size variables and tunable parameters together.
using Bindings = std::map<std::string, std::int64_t>;
// Chosen values of a task's tunable parameters.
using ParamValues = std::map<std::string, std::int64_t>;

struct ArgSpec {
  std::string name;
  DType dtype = DType::F32;
  ArgRole role = ArgRole::Input;
  std::vector<std::string> shape;     // expressions; element count is their product (buffers only)
  std::string init = "uniform(-1,1)";  // distribution for inputs/inout: uniform(a,b) normal(m,s) randint(a,b) ones arange
  std::string value;                   // expression, scalars only
  // Extra distributions correctness checks draw from (besides init and the built-in adversarial
  // ones); see docs/TASK_FORMAT.md "Check inputs".
  std::vector<std::string> check_inits;
  bool adversarial = true;  // false: built-in adversarial draws leave this argument at its init
};

struct LaunchSpec {
  std::array<std::string, 3> grid{"1", "1", "1"};   // in blocks (CUDA) / work-groups (OpenCL)
  std::array<std::string, 3> block{"1", "1", "1"};  // threads per block / local work size
  std::string shared_mem = "0";                      // dynamic shared memory bytes (CUDA)
};

struct TunableParam {
  std::string name;
  std::vector<std::int64_t> values;  // allowed values, in the order the manifest lists them
  std::int64_t default_value = 0;    // the baseline's value
};

struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

struct ProblemSize {
  std::string name;  // e.g. "small", or "size0" when unnamed
  Bindings vars;
};

struct KernelSource {
  Language language = Language::Cuda;
  std::filesystem::path source;  // absolute
  std::string kernel;            // entry point
};

// Host code a Triton task may bring instead of [[args]] and [launch]: a launcher in the kernel's
// module (takes the inputs positionally and the tunables as keywords, launches, returns the
// outputs) and an input builder (takes the size variables, returns the launcher's inputs).
struct PythonHarness {
  std::string launcher;
  std::filesystem::path inputs_source;  // absolute; the task's source unless "file.py:function"
  std::string inputs_function;
};

struct Task {
  std::string name;
  std::filesystem::path manifest_path;  // absolute path of kforge.toml
  std::filesystem::path root;           // folder of the manifest
  KernelSource kernel;
  std::optional<KernelSource> reference;  // default: the original kernel with default params
  std::optional<PythonHarness> harness;   // Triton only; then args is empty and launch unused
  std::vector<ArgSpec> args;
  LaunchSpec launch;
  std::vector<TunableParam> params;
  std::vector<std::string> constraints;     // boolean expressions over params and size vars
  std::vector<std::string> compile_options;  // passed to NVRTC / clBuildProgram
  std::optional<Tolerance> tolerance;        // overrides the dtype defaults
  std::vector<ProblemSize> sizes;            // sizes[0] is the timing size; all are verified
  std::string bytes_expr;                    // bytes moved; default: sum of buffer sizes
  std::string flops_expr;                    // floating-point operations; default: none
  std::string description;

  ParamValues default_params() const;
};

// Parses and validates a manifest (manifest_loader.cpp); throws TaskError with "file: what is wrong; how to fix".
Task load_task(const std::filesystem::path& manifest_path);

// Whether `text` is a distribution an argument's init or check_inits may name (init grammar
// plus the check-only kinds large(a,b) ties(a,b) special(a,b) denormal nonfinite(a,b) zeros).
bool is_valid_distribution(const std::string& text, bool check_only_kinds);

struct TaskError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Helpers every consumer of a task needs.
Bindings bindings_for(const Task& task, const ProblemSize& size, const ParamValues& params);
std::int64_t element_count(const ArgSpec& arg, const Bindings& bindings);
bool satisfies_constraints(const Task& task, const ParamValues& params, const Bindings& size_vars);
Tolerance tolerance_for(const Task& task, DType dtype);
double bytes_moved(const Task& task, const Bindings& bindings);   // bytes_expr or buffer sizes
std::optional<double> flops(const Task& task, const Bindings& bindings);

}  // namespace kforge
