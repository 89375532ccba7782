// The flags of `kforge optimize`, bound straight to the run's configuration, and the one rule
// for `--resume`: the stored configuration is the run's; a flag given again on the resume
// command line replaces its stored value, and every flag not given keeps it.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "optimize/run_config.h"

namespace kforge::cli {

struct OptimizeFlags {
  std::string path;
  std::string resume;
  std::string runs_dir = "runs";
  bool json = false;
  bool no_counters = false;
  optimize::RunConfig config;  // what the flags set; the task and version are filled in later
};

void add_optimize_flags(CLI::App& sub, OptimizeFlags& flags);
// The configuration of a new run from the parsed flags; `random_seed` stands in for a --seed
// that was not given (or given as 0).
optimize::RunConfig new_run_config(const OptimizeFlags& flags, const CLI::App& sub, std::uint64_t random_seed);
// The stored configuration with the flags given on this command line laid over it.
optimize::RunConfig resumed_config(optimize::RunConfig stored, const OptimizeFlags& flags, const CLI::App& sub);

}  // namespace kforge::cli
