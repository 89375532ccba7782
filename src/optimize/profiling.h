// Profiling one verified, timed variant: shared by `kforge profile` and by `kforge optimize`
// (the original in its profile step, the best after the final verification).
#pragma once

#include <filesystem>
#include <string>

#include "optimize/task_options.h"
#include "eval/evaluator.h"
#include "profile/device_characterization.h"
#include "profile/profiler.h"

namespace kforge::optimize {

// Times the FMA probe task through a fresh evaluator: the device's measured FP32 peak.
ProbeTimer probe_timer(const EvalFlags& flags);

struct ProfileRequest {
  bool use_counters = true;
  std::filesystem::path ncu;  // empty: search $PATH
};

struct ProfiledVariant {
  DeviceCharacterization device;
  KernelProfile profile;
  std::string diagnosis;
};

ProfiledVariant profile_variant(Evaluator& evaluator, const EvalFlags& flags, const KernelVariant& variant,
                                const CompileResult& compiled, double median_ms, const ProfileRequest& request);

}  // namespace kforge::optimize
