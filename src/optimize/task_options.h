// What the commands that evaluate kernels (bench, sweep, profile, optimize) share once their
// flags are parsed: the evaluation settings, the tasks a path names and parameter overrides.
// The flags themselves are declared in src/cli/eval_flag_options.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "task/task.h"

namespace kforge::optimize {

struct EvalFlags {
  double timeout_s = 30;
  double max_seconds = 2.0;
  int seeds = 2;
  bool no_flush = false;
  int device = 0;
};

EvalOptions eval_options(const EvalFlags& flags, Language language);
// Manifests named by a path: a manifest, a folder (searched recursively) or a kernel file
// with a manifest beside it. Throws with a hint to run `kforge init` when there is none.
std::vector<Task> load_tasks(const std::filesystem::path& path);
// "BLOCK=128" pairs over the task's defaults; unknown names or values not listed fail.
ParamValues parse_param_overrides(const Task& task, const std::vector<std::string>& assignments);

}  // namespace kforge::optimize
