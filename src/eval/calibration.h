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

#include "eval/check_tolerance.h"
#include "eval/host_buffer.h"
#include "task/task.h"

namespace kforge {

inline constexpr int kCalibrationSeeds = 3;
inline constexpr double kMargin = 4;  // an input-free answer must miss by 4x the tolerance
// Fixed seeds: the same task calibrates to the same tolerances on every run.
std::vector<std::uint64_t> calibration_seeds(const std::string& size_name);

struct OutputCalibration {
  std::string name;           // the output argument
  OutputTolerance tolerance;  // what checks use
  Tolerance manifest;         // what the manifest (or the dtype default) says
  double factor = 1;          // tolerance / manifest (<= 1)
  double pass_factor = 0;     // at manifest x pass_factor an input-free answer passes (inf: never)
  double floor_factor = 0;    // below manifest x floor_factor honest rounding would fail
  bool input_independent = false;  // the reference writes the same bits for every input
  std::string note;           // what was done, one line
  std::string warning;        // non-empty when the tolerance cannot tell an input-free answer
};

// `inputs[k]`, `expected[k]`: the buffers (parallel to task.args) of calibration seed k.
std::vector<OutputCalibration> calibrate_outputs(const Task& task, const Bindings& bindings,
                                                 const std::vector<std::vector<HostBuffer>>& inputs,
                                                 const std::vector<std::vector<HostBuffer>>& expected);
nlohmann::json to_json(const OutputCalibration& calibration);

}  // namespace kforge
