#include "task/kernelbench.h"

#include <regex>
#include <string>

#include "util/files.h"

namespace kforge {

bool is_kernelbench_source(std::string_view source) {
  // Top-level definitions only (column 0), so a nested helper named Model does not count.
  static const std::regex model(R"((^|\n)class\s+Model\s*[(:])");
  static const std::regex inputs(R"((^|\n)def\s+get_inputs\s*\()");
  static const std::regex init_inputs(R"((^|\n)def\s+get_init_inputs\s*\()");
  const std::string text(source);
  return std::regex_search(text, model) && std::regex_search(text, inputs) && std::regex_search(text, init_inputs);
}

bool defines_model_new(std::string_view source) {
  static const std::regex model_new(R"((^|\n)class\s+ModelNew\s*[(:])");
  return std::regex_search(std::string(source), model_new);
}

bool is_kernelbench_problem(const std::filesystem::path& file) {
  std::error_code error;
  if (file.extension() != ".py" || !std::filesystem::is_regular_file(file, error)) return false;
  return is_kernelbench_source(read_file(file));
}

Task kernelbench_task(const std::filesystem::path& file) {
  const auto path = std::filesystem::absolute(file).lexically_normal();
  if (!is_kernelbench_problem(path))
    throw TaskError(path.string() + ": not a KernelBench problem; define class Model, get_inputs() and "
                                    "get_init_inputs() at top level");
  Task task;
  task.name = path.stem().string();
  task.manifest_path = path;  // the worker sees a .py "manifest" and reads the problem itself
  task.root = path.parent_path();
  task.kernel = {Language::PyTorch, path, "Model"};
  task.sizes.push_back({"default", {}});
  task.tolerance = Tolerance{1e-2, 1e-2};  // KernelBench's own tolerance, for every output
  task.description = "KernelBench problem " + path.filename().string() + " (candidates define ModelNew)";
  return task;
}

}  // namespace kforge
