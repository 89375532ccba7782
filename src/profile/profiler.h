// Profiles one kernel variant with the best tool the machine offers: Nsight Compute for
// CUDA, rocprofv3 for HIP, else the analytic roofline - and always says which was used and
// why. Also renders a profile as the short diagnosis the LLM prompts and `kforge profile` show.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "backend/backend.h"
#include "profile/device_characterization.h"
#include "profile/profile.h"
#include "task/task.h"

namespace kforge {

struct ProfileTarget {
  const Task* task = nullptr;
  ParamValues params;
  CompileResult compiled;   // must be ok: the binary is what gets profiled
  double median_ms = 0;     // measured latency on the timing size: the analytic roofline's input
  std::string size_name;    // empty: the timing size (task.sizes[0])
};

struct ProfilerOptions {
  std::filesystem::path worker_executable;  // kforge-worker: the process ncu launches
  int device_index = 0;
  double timeout_s = 300;       // per profiler run; ncu replays a kernel once per counter pass
  bool use_counters = true;     // false: analytic only
  std::filesystem::path ncu;        // empty: $PATH, then /usr/local/cuda/bin
  std::filesystem::path rocprofv3;  // empty: $PATH, then /opt/rocm/bin
};

std::optional<std::filesystem::path> find_ncu(const std::filesystem::path& preferred = {});
std::optional<std::filesystem::path> find_rocprofv3(const std::filesystem::path& preferred = {});

// Never throws for profiler trouble: every failure ends in the analytic profile with the
// reason in source_note. metrics["profiler_seconds"] holds the wall time a profiler took.
KernelProfile profile_candidate(const ProfileTarget& target, const DeviceCharacterization& device,
                                const ProfilerOptions& options);

// Several lines: bound and source, roofline position, counters, resources (registers,
// shared memory, spills) and the top limiters, each with a concrete suggestion.
std::string diagnosis(const KernelProfile& profile, const CompileResult& compiled);

}  // namespace kforge
