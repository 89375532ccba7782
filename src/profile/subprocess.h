// Runs a profiler (ncu, rocprofv3, rocprof-compute) as a child process with a wall-clock
// limit: a profiler that hangs on a stuck kernel must not hang kforge.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kforge {

struct CommandResult {
  bool started = false;     // false: the program could not be executed (see error)
  bool timed_out = false;   // killed after the time limit
  int exit_code = -1;       // exit status; 128+N when killed by signal N
  std::string output;       // stdout and stderr, interleaved as written
  std::string error;        // why it did not start
};

// Runs argv[0] (searched in PATH when it has no '/') in its own process group; on timeout
// the whole group is killed, so children the program started die with it.
CommandResult run_command(const std::vector<std::string>& argv, double timeout_s);

// First executable `name` in $PATH, then in `extra_dirs`.
std::optional<std::filesystem::path> find_executable(const std::string& name,
                                                     const std::vector<std::filesystem::path>& extra_dirs = {});

}  // namespace kforge
