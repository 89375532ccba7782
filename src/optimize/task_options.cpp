#include "optimize/task_options.h"

#include <algorithm>

#include "task/kernelbench.h"
#include "task/manifest_search.h"

namespace kforge::optimize {

EvalOptions eval_options(const EvalFlags& flags, Language language) {
  EvalOptions options;
  options.device_index = flags.device;
  options.check_seeds = flags.seeds;
  options.check_timeout_s = flags.timeout_s;
  options.time_timeout_s = std::max(60.0, flags.max_seconds * 10 + flags.timeout_s);
  options.timing.max_seconds = flags.max_seconds;
  options.timing.flush_cache = !flags.no_flush;
  // Per language (task/languages.h): OpenCL on the CPU is capped, CUDA runs uncapped.
  if (const auto cap = language_facts(language).worker_memory_limit_bytes) options.limits.memory_bytes = *cap;
  return options;
}

std::vector<Task> load_tasks(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path))
    throw std::runtime_error(path.string() + ": no such file or folder");
  // A KernelBench problem (.py with Model, get_inputs, get_init_inputs) is its own manifest.
  if (is_kernelbench_problem(path)) return {kernelbench_task(path)};
  const auto manifests = find_manifests(path);
  if (manifests.empty())
    throw std::runtime_error(path.string() + ": no kforge.toml found; run `kforge init <kernel file>` to draft one");
  std::vector<Task> tasks;
  for (const auto& manifest : manifests) tasks.push_back(load_task(manifest));
  return tasks;
}

ParamValues parse_param_overrides(const Task& task, const std::vector<std::string>& assignments) {
  ParamValues params = task.default_params();
  for (const auto& assignment : assignments) {
    const auto eq = assignment.find('=');
    const std::string name = assignment.substr(0, eq);
    const auto param = std::find_if(task.params.begin(), task.params.end(),
                                    [&](const TunableParam& p) { return p.name == name; });
    if (eq == std::string::npos || param == task.params.end())
      throw std::runtime_error("--param " + assignment + ": not NAME=VALUE of a tunable in " +
                               task.manifest_path.string());
    params[name] = std::stoll(assignment.substr(eq + 1));
  }
  if (!satisfies_constraints(task, params, task.sizes.front().vars))
    throw std::runtime_error("parameters violate a constraint in " + task.manifest_path.string());
  return params;
}

}  // namespace kforge::optimize
