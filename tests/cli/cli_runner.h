// Runs the real kforge binary as a child process, as a user would.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace kforge::testing {

inline std::filesystem::path kforge_binary() { return std::filesystem::path(KFORGE_BINARY_DIR) / "bin/kforge"; }
inline std::filesystem::path source_dir() { return KFORGE_SOURCE_DIR; }

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

inline CommandResult run_kforge(const std::string& arguments) {
  CommandResult result;
  const std::string command = kforge_binary().string() + " " + arguments + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> chunk{};
  while (std::fgets(chunk.data(), chunk.size(), pipe)) result.output += chunk.data();
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// Starts kforge in the background with its output discarded; returns the pid.
inline pid_t start_kforge(const std::vector<std::string>& arguments) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<char*> argv;
    std::string binary = kforge_binary().string();
    argv.push_back(binary.data());
    std::vector<std::string> copies = arguments;
    for (auto& argument : copies) argv.push_back(argument.data());
    argv.push_back(nullptr);
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

}  // namespace kforge::testing
