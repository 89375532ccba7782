// Reads a kforge.toml manifest (toml++) into a Task and validates it, so that every mistake is
// reported before any compiling as "file: where: what is wrong; how to fix" (TaskError).
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>

#include "task/detect.h"
#include "task/expr.h"
#include "task/task.h"
#include "util/files.h"

namespace kforge {
namespace fs = std::filesystem;

namespace {

// "cuda, opencl, hip or triton": the languages a [task] may be written in.
std::string task_language_ids() {
  std::vector<std::string> ids;
  for (const auto& row : all_languages())
    if (row.can_be_task) ids.push_back(row.id);
  std::string text;
  for (std::size_t i = 0; i < ids.size(); ++i) text += (i == 0 ? "" : i + 1 == ids.size() ? " or " : ", ") + ids[i];
  return text;
}

const char* const kScalarDTypes = "i32 i64 f32 f64";
const std::set<std::string> kFunctionNames{"ceil_div", "min", "max", "pow2", "log2", "abs"};

bool is_identifier(const std::string& text) {
  if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_')) return false;
  return std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::string format_bindings(const ParamValues& values) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : values) parts.push_back(name + "=" + std::to_string(value));
  return join(parts, ", ");
}

// "uniform(-1,1)" -> {"uniform", {-1, 1}}; nullopt when it is not name(numbers) or a bare name.
std::optional<std::pair<std::string, std::vector<double>>> parse_call(const std::string& text) {
  std::size_t open = text.find('(');
  std::string name = text.substr(0, open);
  name.erase(name.find_last_not_of(" \t") + 1);
  name.erase(0, name.find_first_not_of(" \t"));
  if (open == std::string::npos) return std::make_pair(name, std::vector<double>{});
  if (text.back() != ')') return std::nullopt;
  std::vector<double> numbers;
  std::string inside = text.substr(open + 1, text.size() - open - 2);
  std::size_t begin = 0;
  while (inside.find_first_not_of(" \t") != std::string::npos && begin <= inside.size()) {
    std::size_t comma = std::min(inside.find(',', begin), inside.size());
    std::string part = inside.substr(begin, comma - begin);
    char* end = nullptr;
    double value = std::strtod(part.c_str(), &end);
    if (end == part.c_str() || part.find_first_not_of(" \t", static_cast<std::size_t>(end - part.c_str())) != std::string::npos)
      return std::nullopt;
    numbers.push_back(value);
    begin = comma + 1;
  }
  return std::make_pair(name, numbers);
}

}  // namespace

bool is_valid_distribution(const std::string& text, bool check_only_kinds) {
  auto call = parse_call(text);
  if (!call) return false;
  const auto& [name, args] = *call;
  if (name == "uniform" || name == "normal" || name == "randint") return args.size() == 2;
  if (name == "ones" || name == "arange" || name == "zeros") return args.empty();
  if (!check_only_kinds) return false;
  if (name == "large" || name == "ties" || name == "special" || name == "nonfinite")
    return args.size() == 2 && args[0] <= args[1] && (name != "large" || args[0] > 0);
  return name == "denormal" && args.empty();
}

namespace {

const char* const kInitKinds = "uniform(a,b) normal(mean,std) randint(a,b) ones zeros arange";
const char* const kCheckKinds =
    "uniform(a,b) normal(mean,std) randint(a,b) ones zeros arange large(a,b) ties(a,b) special(a,b) denormal "
    "nonfinite(a,b)";

class ManifestLoader {
 public:
  explicit ManifestLoader(const fs::path& manifest_path) : shown_path_(manifest_path.string()) {
    task_.manifest_path = fs::absolute(manifest_path).lexically_normal();
    task_.root = task_.manifest_path.parent_path();
  }

  Task load() {
    if (!fs::is_regular_file(task_.manifest_path))
      throw TaskError(shown_path_ + ": no such manifest; run `kforge init KERNEL_SOURCE` to draft one");
    toml::table root = parse();
    check_keys(root, {"task", "reference", "args", "launch", "params", "constraints", "tolerance", "sizes", "metrics"},
               "top level");
    read_task(require_table(root, "task"));
    if (auto* reference = root["reference"].as_table()) read_reference(*reference);
    if (task_.harness) {
      for (const char* unused : {"args", "launch"})
        if (root.contains(unused))
          fail(std::string("[") + unused + "]", "not used when [task] names a launcher (it builds the launch itself); remove it");
    } else {
      read_args(root["args"]);
      read_launch(require_table(root, "launch"));
    }
    if (root.contains("params")) read_params(require_table(root, "params"));
    if (root.contains("constraints")) read_constraints(require_table(root, "constraints"));
    if (root.contains("tolerance")) read_tolerance(require_table(root, "tolerance"));
    read_sizes(root["sizes"]);
    if (root.contains("metrics")) read_metrics(require_table(root, "metrics"));
    check_args_match_kernel();
    for (const auto& size : task_.sizes) check_expressions(size);
    return std::move(task_);
  }

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& problem) const {
    throw TaskError(shown_path_ + ": " + where + ": " + problem);
  }

  toml::table parse() const {
    try {
      return toml::parse_file(task_.manifest_path.string());
    } catch (const toml::parse_error& e) {
      throw TaskError(shown_path_ + ":" + std::to_string(e.source().begin.line) + ":" +
                      std::to_string(e.source().begin.column) + ": invalid TOML: " + std::string(e.description()));
    }
  }

  // A misspelled key would otherwise be silently ignored and its default used.
  void check_keys(const toml::table& table, const std::set<std::string>& known, const std::string& where) const {
    for (const auto& [key, node] : table)
      if (!known.count(std::string(key.str())))
        fail(where, "unknown key '" + std::string(key.str()) + "'; known keys: " +
                        join(std::vector<std::string>(known.begin(), known.end()), " "));
  }

  const toml::table& require_table(const toml::table& root, const std::string& name) const {
    const toml::node* node = root.get(name);
    if (!node) fail("[" + name + "]", "missing; add a [" + name + "] table (see docs/TASK_FORMAT.md)");
    if (!node->is_table()) fail("[" + name + "]", "must be a table, written [" + name + "]");
    return *node->as_table();
  }

  std::optional<std::string> optional_string(const toml::table& table, const std::string& key,
                                             const std::string& where) const {
    const toml::node* node = table.get(key);
    if (!node) return std::nullopt;
    if (!node->is_string()) fail(where + " '" + key + "'", "must be a string in quotes");
    return node->as_string()->get();
  }

  std::string required_string(const toml::table& table, const std::string& key, const std::string& where,
                              const std::string& fix) const {
    auto value = optional_string(table, key, where);
    if (!value || value->empty()) fail(where, "missing '" + key + "'; " + fix);
    return *value;
  }

  // Expressions may be written as strings ("n * 4") or plain numbers (256).
  std::string expression(const toml::node& node, const std::string& where) const {
    if (auto* s = node.as_string()) {
      if (s->get().empty()) fail(where, "empty expression; write a number or an expression such as \"n\"");
      return s->get();
    }
    if (auto* i = node.as_integer()) return std::to_string(i->get());
    if (auto* f = node.as_floating_point()) {
      std::ostringstream out;
      out.precision(17);
      out << f->get();
      return out.str();
    }
    fail(where, "must be an expression string such as \"ceil_div(n, BLOCK)\" or an integer");
  }

  std::vector<std::string> expression_list(const toml::node& node, const std::string& where) const {
    if (!node.is_array()) return {expression(node, where)};
    std::vector<std::string> out;
    const auto& array = *node.as_array();
    for (std::size_t i = 0; i < array.size(); ++i)
      out.push_back(expression(array[i], where + "[" + std::to_string(i) + "]"));
    return out;
  }

  std::vector<std::string> string_list(const toml::table& table, const std::string& key, const std::string& where) const {
    std::vector<std::string> out;
    const toml::node* node = table.get(key);
    if (!node) return out;
    const toml::array* array = node->as_array();
    if (!array) fail(where + " '" + key + "'", "must be an array of strings, e.g. [\"a\", \"b\"]");
    for (const auto& item : *array) {
      if (!item.is_string()) fail(where + " '" + key + "'", "must be an array of strings, e.g. [\"a\", \"b\"]");
      out.push_back(item.as_string()->get());
    }
    return out;
  }

  fs::path existing_source(const std::string& relative, const std::string& where) const {
    fs::path path = (task_.root / relative).lexically_normal();
    if (!fs::is_regular_file(path))
      fail(where + " source", "'" + relative + "' does not exist (looked for " + path.string() +
                                  "); give the path relative to the manifest");
    return path;
  }

  // `language` if given, else what the file says, else the fallback (the task's, for [reference]).
  Language language_of(const toml::table& table, const fs::path& source, const std::string& where,
                       const std::string& source_text, std::optional<Language> fallback) const {
    auto name = optional_string(table, "language", where);
    if (name) {
      auto language = parse_language(*name);
      if (!language) fail(where + " language", "unknown language '" + *name + "'; use one of " + language_ids());
      return *language;
    }
    auto guessed = language_for_file(source, source_text);
    if (!guessed) guessed = fallback;
    if (!guessed) fail(where, "missing 'language' and cannot tell it from '" + source.filename().string() +
                                  "'; add language = \"cuda\" (or opencl, hip, triton)");
    return *guessed;
  }

  // Reads and checks the entry point; without `kernel` the source's only kernel is taken.
  KernelSource kernel_source(const toml::table& table, const std::string& where,
                             std::optional<Language> default_language) {
    KernelSource ks;
    ks.source = existing_source(required_string(table, "source", where, "add source = \"file.cu\""), where);
    std::string text = read_file(ks.source);
    ks.language = language_of(table, ks.source, where, text, default_language);
    auto found = detect_kernels_in_source(text, ks.language, ks.source);
    std::vector<std::string> names;
    for (const auto& k : found) names.push_back(k.name);
    auto kernel = optional_string(table, "kernel", where);
    if (!kernel) {
      if (found.size() != 1)
        fail(where, "missing 'kernel'; add kernel = \"<entry point>\"" +
                        (names.empty() ? std::string() : " (found: " + join(names, ", ") + ")"));
      kernel = found[0].name;
    }
    if (!found.empty() && std::find(names.begin(), names.end(), *kernel) == names.end())
      fail(where + " kernel", "'" + *kernel + "' is not a kernel in " + ks.source.filename().string() +
                                  "; found: " + join(names, ", "));
    auto match = std::find_if(found.begin(), found.end(), [&](const auto& k) { return k.name == *kernel; });
    if (match != found.end() && where == "[task]") detected_ = *match;
    ks.kernel = *kernel;
    return ks;
  }

  void read_task(const toml::table& table) {
    check_keys(table, {"name", "language", "source", "kernel", "description", "compile_options", "launcher", "inputs"},
               "[task]");
    task_.kernel = kernel_source(table, "[task]", std::nullopt);
    if (!language_facts(task_.kernel.language).can_be_task)
      fail("[task] language", to_string(task_.kernel.language) + " can only be a [reference]; use " + task_language_ids());
    read_harness(table);
    task_.name = optional_string(table, "name", "[task]").value_or(default_name());
    task_.description = optional_string(table, "description", "[task]").value_or("");
    task_.compile_options = string_list(table, "compile_options", "[task]");
  }

  void read_harness(const toml::table& table) {
    auto launcher = optional_string(table, "launcher", "[task]");
    auto inputs = optional_string(table, "inputs", "[task]");
    if (!launcher && !inputs) return;
    if (!language_facts(task_.kernel.language).takes_launcher)
      fail("[task]", "only Triton tasks take a launcher and inputs; remove them (kforge launches " +
                         to_string(task_.kernel.language) + " kernels from [[args]] and [launch])");
    if (!launcher) fail("[task]", "'inputs' needs 'launcher' too; add launcher = \"<function that launches the kernel>\"");
    if (!inputs) fail("[task]", "'launcher' needs 'inputs' too; add inputs = \"<function that builds the inputs>\"");
    PythonHarness harness;
    harness.launcher = *launcher;
    if (!defines_python_function(read_file(task_.kernel.source), harness.launcher))
      fail("[task] launcher", "'" + harness.launcher + "' is not a top-level function in " +
                                  task_.kernel.source.filename().string() +
                                  "; define def " + harness.launcher +
                                  "(<inputs>, <tunables as keywords>) that launches the kernel and returns the outputs");
    // "make_inputs" (in the kernel's file) or "inputs.py:make_inputs".
    const auto colon = inputs->rfind(':');
    harness.inputs_function = colon == std::string::npos ? *inputs : inputs->substr(colon + 1);
    harness.inputs_source = colon == std::string::npos ? task_.kernel.source
                                                       : existing_source(inputs->substr(0, colon), "[task] inputs");
    if (!defines_python_function(read_file(harness.inputs_source), harness.inputs_function))
      fail("[task] inputs", "'" + harness.inputs_function + "' is not a top-level function in " +
                                harness.inputs_source.filename().string() + "; define def " + harness.inputs_function +
                                "(<size variables>, device) returning the launcher's inputs");
    task_.harness = std::move(harness);
  }

  // "softmax.kforge.toml" -> "softmax"; "kforge.toml" -> its folder's name.
  std::string default_name() const {
    std::string file = task_.manifest_path.filename().string();
    const std::string suffix = ".kforge.toml";
    if (file.size() > suffix.size() && file.ends_with(suffix)) return file.substr(0, file.size() - suffix.size());
    return task_.root.filename().string();
  }

  void read_reference(const toml::table& table) {
    check_keys(table, {"language", "source", "kernel"}, "[reference]");
    if (task_.harness) {
      task_.reference = python_function_reference(table);
      return;
    }
    task_.reference = kernel_source(table, "[reference]", task_.kernel.language);
  }

  // Beside a launcher, the reference is a plain Python function called with the same inputs
  // (PyTorch, typically; the Triton file itself may hold it).
  KernelSource python_function_reference(const toml::table& table) const {
    KernelSource ks;
    ks.source = existing_source(required_string(table, "source", "[reference]", "add source = \"reference.py\""),
                                "[reference]");
    ks.language = Language::PyTorch;
    ks.kernel = required_string(table, "kernel", "[reference]", "add kernel = \"<function returning the outputs>\"");
    if (!defines_python_function(read_file(ks.source), ks.kernel))
      fail("[reference] kernel", "'" + ks.kernel + "' is not a top-level function in " + ks.source.filename().string() +
                                     "; define def " + ks.kernel + "(<the launcher's inputs>) returning the outputs");
    return ks;
  }

  void read_args(const toml::node_view<toml::node> node) {
    const toml::array* array = node.as_array();
    if (!array || array->empty())
      fail("[[args]]", "missing; add one [[args]] table per kernel parameter, in order");
    std::set<std::string> names;
    for (std::size_t i = 0; i < array->size(); ++i) {
      const toml::table* table = (*array)[i].as_table();
      std::string where = "[[args]] #" + std::to_string(i + 1);
      if (!table) fail(where, "must be a table, written [[args]]");
      ArgSpec arg = read_arg(*table, where);
      if (!names.insert(arg.name).second) fail("[args] '" + arg.name + "'", "duplicate name; names must be unique");
      task_.args.push_back(std::move(arg));
    }
    bool writes = std::any_of(task_.args.begin(), task_.args.end(),
                              [](const auto& a) { return a.role == ArgRole::Output || a.role == ArgRole::InOut; });
    if (!writes) fail("[[args]]", "no argument has role \"output\" or \"inout\"; mark the buffers the kernel writes");
  }

  ArgSpec read_arg(const toml::table& table, const std::string& numbered) const {
    check_keys(table, {"name", "dtype", "shape", "role", "init", "value", "check_inits", "adversarial"}, numbered);
    ArgSpec arg;
    arg.name = required_string(table, "name", numbered, "add name = \"<kernel parameter name>\"");
    std::string where = "[args] '" + arg.name + "'";
    std::string dtype = required_string(table, "dtype", where, "add dtype = \"f32\" (or " + dtype_names() + ")");
    auto parsed_dtype = parse_dtype(dtype);
    if (!parsed_dtype) fail(where, "unknown dtype '" + dtype + "'; use one of " + dtype_names());
    arg.dtype = *parsed_dtype;
    std::string role = required_string(table, "role", where, "add role = \"input\" (or output, inout, scalar)");
    auto parsed_role = parse_role(role);
    if (!parsed_role) fail(where, "unknown role '" + role + "'; use one of " + role_names());
    arg.role = *parsed_role;
    if (arg.role == ArgRole::Scalar) {
      read_scalar(table, where, arg);
    } else {
      read_buffer(table, where, arg);
    }
    return arg;
  }

  void read_scalar(const toml::table& table, const std::string& where, ArgSpec& arg) const {
    static const std::set<DType> scalar_dtypes{DType::I32, DType::I64, DType::F32, DType::F64};
    if (!scalar_dtypes.count(arg.dtype))
      fail(where, "dtype '" + to_string(arg.dtype) + "' is not supported for scalars; use one of " + kScalarDTypes);
    if (table.contains("shape")) fail(where, "scalars have no shape; remove 'shape' or use a buffer role");
    if (table.contains("init")) fail(where, "scalars have no init; set value = \"<expression>\" instead");
    for (const char* key : {"check_inits", "adversarial"})
      if (table.contains(key)) fail(where, std::string("scalars take no '") + key + "' (their value is an expression); remove it");
    const toml::node* value = table.get("value");
    if (!value) fail(where, "missing 'value'; add value = \"n\" (an expression over sizes and params)");
    arg.value = expression(*value, where + " value");
    arg.init.clear();
  }

  void read_buffer(const toml::table& table, const std::string& where, ArgSpec& arg) const {
    if (table.contains("value")) fail(where, "'value' is only for role = \"scalar\"; buffers take shape and init");
    const toml::node* shape = table.get("shape");
    if (!shape) fail(where, "missing 'shape'; add shape = [\"n\"] (expressions whose product is the element count)");
    arg.shape = expression_list(*shape, where + " shape");
    if (arg.shape.empty()) fail(where + " shape", "is empty; list at least one dimension, e.g. [\"n\"]");
    auto init = optional_string(table, "init", where);
    if (init && arg.role == ArgRole::Output)
      fail(where, "init has no effect on outputs (they are poisoned before each run); remove it or use role = \"inout\"");
    if (init && !is_valid_distribution(*init, false))
      fail(where + " init", "'" + *init + "' is not a known distribution; use " + kInitKinds);
    if (arg.role == ArgRole::Output) arg.init.clear();
    else if (init) arg.init = *init;
    else if (!is_floating(arg.dtype)) arg.init = "randint(0,100)";
    read_check_draws(table, where, arg);
  }

  // check_inits: distributions correctness checks draw from besides init; adversarial = false
  // keeps the built-in adversarial draws away from an argument with a domain (probabilities).
  void read_check_draws(const toml::table& table, const std::string& where, ArgSpec& arg) const {
    const bool has_list = table.contains("check_inits");
    if ((has_list || table.contains("adversarial")) && arg.role == ArgRole::Output)
      fail(where, "outputs take no check_inits or adversarial (they are poisoned before each run); remove it");
    if (has_list) {
      const toml::array* list = table.get("check_inits")->as_array();
      if (!list) fail(where + " check_inits", "must be a list of strings, e.g. [\"uniform(-1000,1000)\", \"denormal\"]");
      for (const auto& item : *list) {
        const auto* text = item.as_string();
        if (!text) fail(where + " check_inits", "must be a list of strings, e.g. [\"uniform(-1000,1000)\", \"denormal\"]");
        if (!is_valid_distribution(text->get(), true))
          fail(where + " check_inits", "'" + text->get() + "' is not a known distribution; use " + kCheckKinds);
        arg.check_inits.push_back(text->get());
      }
    }
    if (const toml::node* adversarial = table.get("adversarial")) {
      if (!adversarial->is_boolean()) fail(where + " adversarial", "must be true or false (without quotes)");
      arg.adversarial = adversarial->as_boolean()->get();
    }
  }

  void read_launch(const toml::table& table) {
    check_keys(table, {"grid", "block", "shared_mem"}, "[launch]");
    read_dims(table, "grid", task_.launch.grid, "add grid = [\"ceil_div(n, BLOCK)\", \"1\", \"1\"] (in blocks)");
    // Triton picks its own threads per program; every other language needs the block size.
    if (language_facts(task_.kernel.language).block_is_launch_dimension || table.contains("block"))
      read_dims(table, "block", task_.launch.block, "add block = [\"BLOCK\", \"1\", \"1\"] (threads per block)");
    if (const toml::node* shared = table.get("shared_mem")) task_.launch.shared_mem = expression(*shared, "[launch] shared_mem");
  }

  void read_dims(const toml::table& table, const std::string& key, std::array<std::string, 3>& dims,
                 const std::string& fix) const {
    const toml::node* node = table.get(key);
    std::string where = "[launch] " + key;
    if (!node) fail("[launch]", "missing '" + key + "'; " + fix);
    auto list = expression_list(*node, where);
    if (list.empty() || list.size() > 3) fail(where, "needs 1 to 3 dimensions, got " + std::to_string(list.size()));
    for (std::size_t d = 0; d < 3; ++d) dims[d] = d < list.size() ? list[d] : "1";
  }

  void read_params(const toml::table& table) {
    for (const auto& [key, node] : table) {
      std::string name(key.str());
      std::string where = "[params] '" + name + "'";
      if (!is_identifier(name) || kFunctionNames.count(name))
        fail(where, "not a usable name; use letters, digits and _ (not a function name)");
      TunableParam param{name, {}, 0};
      const toml::array* values = node.as_array();
      const toml::table* long_form = node.as_table();
      if (long_form) {
        check_keys(*long_form, {"values", "default"}, where);
        values = long_form->get("values") ? long_form->get("values")->as_array() : nullptr;
      }
      if (!values) fail(where, "must be a list of integers like [64, 128] or { values = [64, 128], default = 128 }");
      read_param_values(*values, where, param);
      param.default_value = param.values.front();
      if (long_form && long_form->contains("default")) {
        auto def = long_form->get("default")->value<std::int64_t>();
        if (!def) fail(where + " default", "must be an integer");
        if (std::find(param.values.begin(), param.values.end(), *def) == param.values.end())
          fail(where, "default " + std::to_string(*def) + " is not among its values; add it to values or change default");
        param.default_value = *def;
      }
      task_.params.push_back(std::move(param));
    }
  }

  void read_param_values(const toml::array& values, const std::string& where, TunableParam& param) const {
    if (values.empty()) fail(where, "has no values; list at least one integer");
    for (const auto& item : values) {
      if (!item.is_integer()) fail(where, "values must be integers; use numbers like 64, not strings");
      std::int64_t v = item.as_integer()->get();
      if (std::find(param.values.begin(), param.values.end(), v) != param.values.end())
        fail(where, "value " + std::to_string(v) + " is listed twice; remove the duplicate");
      param.values.push_back(v);
    }
  }

  void read_constraints(const toml::table& table) {
    check_keys(table, {"rules"}, "[constraints]");
    task_.constraints = string_list(table, "rules", "[constraints]");
  }

  void read_tolerance(const toml::table& table) {
    check_keys(table, {"atol", "rtol"}, "[tolerance]");
    auto number = [&](const char* key) {
      auto value = table.get(key) ? table.get(key)->value<double>() : std::nullopt;
      if (!value) fail("[tolerance]", std::string("missing or non-numeric '") + key + "'; set both atol and rtol, e.g. atol = 1e-5");
      if (*value < 0) fail(std::string("[tolerance] ") + key, "must not be negative");
      return *value;
    };
    task_.tolerance = Tolerance{number("atol"), number("rtol")};
  }

  void read_sizes(const toml::node_view<toml::node> node) {
    const toml::array* array = node.as_array();
    if (!array || array->empty())
      fail("[[sizes]]", "missing; add at least one [[sizes]] table, e.g. name = \"large\" and n = 1048576");
    for (std::size_t i = 0; i < array->size(); ++i) {
      std::string where = "[[sizes]] #" + std::to_string(i + 1);
      const toml::table* table = (*array)[i].as_table();
      if (!table) fail(where, "must be a table, written [[sizes]]");
      task_.sizes.push_back(read_size(*table, where, i));
    }
    check_sizes_agree();
  }

  ProblemSize read_size(const toml::table& table, const std::string& where, std::size_t index) const {
    ProblemSize size;
    size.name = optional_string(table, "name", where).value_or("size" + std::to_string(index));
    for (const auto& [key, node] : table) {
      std::string var(key.str());
      if (var == "name") continue;
      std::string var_where = "[[sizes]] '" + size.name + "' " + var;
      if (!is_identifier(var) || kFunctionNames.count(var))
        fail(var_where, "not a usable variable name; use letters, digits and _");
      if (std::any_of(task_.params.begin(), task_.params.end(), [&](const auto& p) { return p.name == var; }))
        fail(var_where, "is also a tunable in [params]; rename one of them");
      try {
        size.vars[var] = eval_int(expression(node, var_where), {});
      } catch (const ExprError& e) {
        fail(var_where, std::string(e.what()) + "; sizes must be integers or constant expressions like \"2**24\"");
      }
    }
    if (size.vars.empty()) fail("[[sizes]] '" + size.name + "'", "defines no variables; add one, e.g. n = 1048576");
    return size;
  }

  void check_sizes_agree() const {
    std::set<std::string> names;
    const ProblemSize& first = task_.sizes.front();
    for (const auto& size : task_.sizes) {
      if (!names.insert(size.name).second) fail("[[sizes]] '" + size.name + "'", "duplicate name; names must be unique");
      for (const auto& [var, value] : first.vars)
        if (!size.vars.count(var))
          fail("[[sizes]] '" + size.name + "'", "missing '" + var + "' which size '" + first.name + "' defines; every size sets the same variables");
      for (const auto& [var, value] : size.vars)
        if (!first.vars.count(var))
          fail("[[sizes]] '" + first.name + "'", "missing '" + var + "' which size '" + size.name + "' defines; every size sets the same variables");
    }
  }

  void read_metrics(const toml::table& table) {
    check_keys(table, {"bytes", "flops"}, "[metrics]");
    if (const toml::node* bytes = table.get("bytes")) task_.bytes_expr = expression(*bytes, "[metrics] bytes");
    if (const toml::node* f = table.get("flops")) task_.flops_expr = expression(*f, "[metrics] flops");
  }

  // The arguments are passed positionally, so their count must match the kernel's parameters.
  // Triton's tl.constexpr parameters come from [params], not [[args]].
  void check_args_match_kernel() const {
    if (!detected_ || task_.harness) return;  // a launcher passes the arguments itself
    std::vector<std::string> expected;
    for (const auto& p : detected_->params)
      if (!p.is_constexpr) expected.push_back(p.name.empty() ? "?" : p.name);
    if (expected.size() != task_.args.size())
      fail("[[args]]", std::to_string(task_.args.size()) + " arguments but kernel '" + detected_->name + "' takes " +
                           std::to_string(expected.size()) + " (" + join(expected, ", ") +
                           "); list one [[args]] per parameter, in order");
  }

  // Evaluating every expression once per size with the default params catches unknown names
  // (also in unevaluated branches, see expr.cpp) and impossible geometry before any compiling.
  void check_expressions(const ProblemSize& size) const {
    ParamValues defaults = task_.default_params();
    Bindings bindings = size.vars;
    bindings.insert(defaults.begin(), defaults.end());
    std::string at = " at size '" + size.name + "'";
    for (const auto& arg : task_.args) {
      std::string where = "[args] '" + arg.name + "'";
      if (arg.role == ArgRole::Scalar) check_scalar_fits(arg, bindings, where, at);
      std::int64_t count = 1;
      for (std::size_t d = 0; d < arg.shape.size(); ++d) {
        std::int64_t extent = 0;
        evaluate(where + " shape[" + std::to_string(d) + "]", at, [&] { return double(extent = eval_int(arg.shape[d], bindings)); });
        if (extent < 0) fail(where + " shape[" + std::to_string(d) + "]", "'" + arg.shape[d] + "' is negative" + at);
        if (__builtin_mul_overflow(count, extent, &count))
          fail(where + " shape", "the element count overflows 64 bits" + at + "; lower the size's variables");
      }
      std::int64_t bytes = 0;
      static_assert(sizeof(std::size_t) >= sizeof(std::int64_t), "byte counts are size_t");
      if (__builtin_mul_overflow(count, static_cast<std::int64_t>(dtype_size(arg.dtype)), &bytes))
        fail(where + " shape", std::to_string(count) + " elements of " + to_string(arg.dtype) +
                                   " overflow a 64-bit byte count" + at + "; lower the size's variables");
    }
    check_dims("grid", task_.launch.grid, bindings, at);
    check_dims("block", task_.launch.block, bindings, at);
    auto shared = evaluate("[launch] shared_mem", at, [&] { return double(eval_int(task_.launch.shared_mem, bindings)); });
    if (shared < 0) fail("[launch] shared_mem", "is negative" + at);
    for (const auto& rule : task_.constraints) {
      bool holds = evaluate("[constraints] rules", at, [&] { return double(eval_bool(rule, bindings)); }) != 0;
      if (!holds)
        fail("[constraints] rules", "'" + rule + "' is false for the default params (" + format_bindings(defaults) +
                                        ")" + at + "; change the defaults or the rule");
    }
    if (!task_.bytes_expr.empty()) evaluate("[metrics] bytes", at, [&] { return eval_expr(task_.bytes_expr, bindings); });
    if (!task_.flops_expr.empty()) evaluate("[metrics] flops", at, [&] { return eval_expr(task_.flops_expr, bindings); });
  }

  // A value the scalar's dtype cannot hold would reach the kernel wrapped around (an i32 n of
  // 3e9 becomes negative) and fail as a timeout or a crash of every candidate instead.
  void check_scalar_fits(const ArgSpec& arg, const Bindings& bindings, const std::string& where,
                         const std::string& at) const {
    if (is_floating(arg.dtype)) {
      const double value = evaluate(where + " value", at, [&] { return eval_expr(arg.value, bindings); });
      const double limit = arg.dtype == DType::F32 ? double(std::numeric_limits<float>::max())
                                                   : std::numeric_limits<double>::max();
      if (!std::isfinite(value) || std::fabs(value) > limit)
        fail(where + " value", "'" + arg.value + "' is " + std::to_string(value) + at + ", which " + to_string(arg.dtype) +
                                   " cannot hold; lower the size's variables or use dtype f64");
      return;
    }
    std::int64_t value = 0;
    evaluate(where + " value", at, [&] { return double(value = eval_int(arg.value, bindings)); });
    if (arg.dtype == DType::I32 && (value > std::numeric_limits<std::int32_t>::max() ||
                                    value < std::numeric_limits<std::int32_t>::min()))
      fail(where + " value", "'" + arg.value + "' is " + std::to_string(value) + at +
                                 ", which overflows the i32 scalar (at most 2147483647); lower the size or use dtype = \"i64\" "
                                 "(and a 64-bit parameter in the kernel)");
  }

  void check_dims(const std::string& key, const std::array<std::string, 3>& dims, const Bindings& bindings,
                  const std::string& at) const {
    for (std::size_t d = 0; d < 3; ++d) {
      std::string where = "[launch] " + key + "[" + std::to_string(d) + "]";
      auto value = evaluate(where, at, [&] { return double(eval_int(dims[d], bindings)); });
      if (value < 1) fail(where, "'" + dims[d] + "' is " + std::to_string(std::int64_t(value)) + at + "; it must be at least 1");
    }
  }

  template <typename F>
  double evaluate(const std::string& where, const std::string& at, F&& compute) const {
    try {
      return compute();
    } catch (const ExprError& e) {
      fail(where, e.what() + at);
    }
  }

  std::string shown_path_;
  Task task_;
  std::optional<DetectedKernel> detected_;
};

}  // namespace

Task load_task(const fs::path& manifest_path) { return ManifestLoader(manifest_path).load(); }

}  // namespace kforge
