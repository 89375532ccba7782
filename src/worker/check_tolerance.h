// Per-output tolerances of a correctness check. The orchestrator calibrates them once per task
// and size (calibration.h) and sends them as numbers with every check request; the worker
// adapts them to each draw: on adversarial draws the absolute part scales with the reference's
// output magnitude and never drops below an estimate of honest rounding error.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <vector>

#include "worker/host_buffer.h"
#include "protocol/worker_protocol.h"

namespace kforge {

// 2^-11 (f16), 2^-8 (bf16), 2^-24 (f32), 2^-53 (f64); 0 for integers.
double unit_roundoff(DType dtype);
// Honest rounding of a reordered sum of m terms: a sequential sum (the worst common order) of
// terms whose running sum has magnitude P errs by about u * sqrt(m) * P, with P = |result| for
// terms of one sign and ~ sqrt(m) * mean|term| for mixed signs. This returns u * sqrt(m).
double rounding_coefficient(DType dtype, double fan_in);
// Mean |x| over the finite elements (sampled to at most 2^20 of them).
double mean_abs(const HostBuffer& buffer);
// Mean |x| over the float inputs and inouts of one draw (buffers parallel to args).
double mean_abs_inputs(const std::vector<ArgPlan>& args, const std::vector<HostBuffer>& inputs);

// The tolerance an output is compared with on one draw. Manifest draws use `base` as is. On
// other draws: atol * max(1, mean|expected| / scale) and at least rounding_coefficient *
// sqrt(fan_in) * mean|input|; rtol at least rounding_coefficient. Integer outputs stay exact.
Tolerance tolerance_for_draw(const OutputTolerance& base, DType dtype, bool manifest_draw, const HostBuffer& expected,
                             double input_mean_abs);

}  // namespace kforge
