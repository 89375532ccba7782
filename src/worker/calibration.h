// Calibration of output tolerances against the data (once per task and size, before checks).
// A tolerance is useless when a result that never read the inputs passes it: on
// sum_reduction's 4M-element size the manifest allows ±1049 while the true sums spread by ±592,
// so writing n/2 passes. The reference runs on a few fixed seeds; for every output, another
// seed's reference output and the constant mean of it are tried as answers. If either would
// pass within `kMargin` times the tolerance, the tolerance is tightened (atol and rtol scaled
// by one factor), but never below an estimate of honest rounding error (check_tolerance.h);
// when that floor still lets such an answer pass, the calibration says so in a warning.
// Calibration never loosens a tolerance. docs/TASK_FORMAT.md ("Tolerances") has the method.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "worker/check_tolerance.h"
#include "worker/host_buffer.h"
#include "protocol/worker_protocol.h"

namespace kforge {

inline constexpr double kMargin = 4;  // an input-free answer must miss by 4x the tolerance
// `inputs[k]`, `expected[k]`: the buffers (parallel to task.args) of calibration seed k
// (protocol/check_inputs.h: calibration_seeds).
std::vector<OutputCalibration> calibrate_outputs(const TaskPlan& task, const LaunchPlan& launch,
                                                 const std::vector<std::vector<HostBuffer>>& inputs,
                                                 const std::vector<std::vector<HostBuffer>>& expected);

}  // namespace kforge
