// The evaluation flags (--timeout, --max-seconds, --seeds, --no-flush, --device) that bench,
// sweep, profile and optimize share, and the optimize module's helpers those commands use.
#pragma once

#include <CLI/CLI.hpp>

#include "optimize/task_options.h"

namespace kforge::cli {

using optimize::EvalFlags;
using optimize::eval_options;
using optimize::load_tasks;
using optimize::parse_param_overrides;

void add_eval_flags(CLI::App& sub, EvalFlags& flags);

}  // namespace kforge::cli
