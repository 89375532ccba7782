// The `kforge` commands: one row each in one table (name, description, setup). A command's
// setup declares its flags on its own subcommand and returns the action that runs it; the
// cmd_*.cpp files hold those setups and stay thin, the work lives in the modules they call.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <span>

namespace kforge::cli {

using Action = std::function<int()>;

struct Command {
  const char* name;
  const char* description;  // the line `kforge --help` shows
  Action (*setup)(CLI::App& sub);
};

// Every command, in the order `kforge --help` lists them.
std::span<const Command> command_table();

Action setup_doctor(CLI::App& sub);
Action setup_detect(CLI::App& sub);
Action setup_init(CLI::App& sub);
Action setup_bench(CLI::App& sub);
Action setup_profile(CLI::App& sub);
Action setup_optimize(CLI::App& sub);
Action setup_runs(CLI::App& sub);
Action setup_show(CLI::App& sub);
Action setup_report(CLI::App& sub);
Action setup_sweep(CLI::App& sub);

}  // namespace kforge::cli
