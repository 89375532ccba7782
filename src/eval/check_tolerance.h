// Per-output tolerances of a correctness check. The orchestrator calibrates them once per task
// and size (calibration.h) and sends them as numbers with every check request; the worker
// adapts them to each draw: on adversarial draws the absolute part scales with the reference's
// output magnitude and never drops below an estimate of honest rounding error.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <vector>

#include "eval/host_buffer.h"
#include "task/task.h"

namespace kforge {

struct OutputTolerance {
  double atol = 0;
  double rtol = 0;
  double scale = 0;   // mean |reference output| on the manifest's inputs; 0: unknown
  double fan_in = 1;  // input elements per output element: the length of the sums it may hold
};

nlohmann::json to_json(const OutputTolerance& tolerance);
OutputTolerance output_tolerance_from_json(const nlohmann::json& json);

// 2^-11 (f16), 2^-8 (bf16), 2^-24 (f32), 2^-53 (f64); 0 for integers.
double unit_roundoff(DType dtype);
// Float elements of the inputs and inouts per element of task.args[output].
double fan_in(const Task& task, const Bindings& bindings, std::size_t output);
// Honest rounding of a reordered sum of m terms: a sequential sum (the worst common order) of
// terms whose running sum has magnitude P errs by about u * sqrt(m) * P, with P = |result| for
// terms of one sign and ~ sqrt(m) * mean|term| for mixed signs. This returns u * sqrt(m).
double rounding_coefficient(DType dtype, double fan_in);
// Mean |x| over the finite elements (sampled to at most 2^20 of them).
double mean_abs(const HostBuffer& buffer);
// Mean |x| over the float inputs and inouts of one draw (buffers parallel to task.args).
double mean_abs_inputs(const Task& task, const std::vector<HostBuffer>& inputs);

// The tolerance an output is compared with on one draw. Manifest draws use `base` as is. On
// other draws: atol * max(1, mean|expected| / scale) and at least rounding_coefficient *
// sqrt(fan_in) * mean|input|; rtol at least rounding_coefficient. Integer outputs stay exact.
Tolerance tolerance_for_draw(const OutputTolerance& base, DType dtype, bool manifest_draw, const HostBuffer& expected,
                             double input_mean_abs);

}  // namespace kforge
