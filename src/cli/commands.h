// Each `kforge <command>` registers itself on the CLI11 app and returns its action.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace kforge::cli {

using Action = std::function<int()>;

Action add_doctor(CLI::App& app);
Action add_detect(CLI::App& app);
Action add_init(CLI::App& app);
Action add_bench(CLI::App& app);
Action add_profile(CLI::App& app);
Action add_optimize(CLI::App& app);
Action add_runs(CLI::App& app);
Action add_show(CLI::App& app);
Action add_report(CLI::App& app);
Action add_sweep(CLI::App& app);

}  // namespace kforge::cli
