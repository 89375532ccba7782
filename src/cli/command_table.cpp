#include <array>

#include "cli/commands.h"

namespace kforge::cli {

std::span<const Command> command_table() {
  static constexpr std::array<Command, 10> kCommands = {{
    {"doctor", "List usable backends and devices, and why the others are not", setup_doctor},
    {"detect", "Find GPU kernels in a file or folder", setup_detect},
    {"init", "Write a draft kforge.toml for a kernel file", setup_init},
    {"bench", "Compile, verify and time a task's kernel", setup_bench},
    {"profile", "Profile a task's kernel (or a run's candidate) and diagnose it", setup_profile},
    {"optimize", "Evolve faster versions of the kernels in a file or folder", setup_optimize},
    {"runs", "List optimisation runs", setup_runs},
    {"show", "Show a run, or one candidate with its lineage", setup_show},
    {"report", "Write report.md, report.html, best kernel and diff of a run", setup_report},
    {"sweep", "Evaluate every valid configuration of a task's tunables", setup_sweep},
  }};
  return kCommands;
}

}  // namespace kforge::cli
