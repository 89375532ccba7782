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

}  // namespace kforge::cli
