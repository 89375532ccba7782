#include "search/llm_operators/entry_kernel.h"

#include <fmt/format.h>

#include "task/kernelbench.h"

namespace kforge {

std::optional<DetectedKernel> find_entry_kernel(const std::string& source, const Task& task) {
  // A KernelBench candidate replaces Model with ModelNew (python/kforge_runners.py runs it).
  const bool kernelbench = language_facts(task.kernel.language).entry_points == EntryPointStyle::KernelBenchModel;
  if (kernelbench && defines_model_new(source)) {
    DetectedKernel kernel;
    kernel.name = task.kernel.kernel;
    kernel.language = task.kernel.language;
    return kernel;
  }
  try {
    for (auto& kernel : detect_kernels_in_source(source, task.kernel.language, task.kernel.source))
      if (kernel.name == task.kernel.kernel) return kernel;
  } catch (const std::exception&) {
    // Source the detector cannot read has no usable entry kernel either.
  }
  return std::nullopt;
}

std::string signature_text(const DetectedKernel& kernel) {
  std::string params;
  for (const auto& param : kernel.params)
    params += fmt::format("{}{}{}{}", params.empty() ? "" : ", ", param.type, param.name.empty() ? "" : " ", param.name);
  return kernel.name + "(" + params + ")";
}

std::string entry_kernel_problem(const std::string& source, const Task& task, std::size_t expected_params) {
  if (task.harness)  // kforge calls the launcher; the kernels behind it may change shape
    return defines_python_function(source, task.harness->launcher)
               ? ""
               : fmt::format("the reply does not define the launcher `{}`", task.harness->launcher);
  const auto kernel = find_entry_kernel(source, task);
  if (!kernel) return fmt::format("the reply does not define the entry kernel `{}`", task.kernel.kernel);
  if (kernel->params.size() != expected_params)
    return fmt::format("the reply changed the signature of `{}`: {} parameters instead of {}", task.kernel.kernel,
                       kernel->params.size(), expected_params);
  return "";
}

}  // namespace kforge
