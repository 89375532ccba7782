#include "worker/check_tolerance.h"

#include <algorithm>
#include <cmath>

namespace kforge {

double unit_roundoff(DType dtype) {
  switch (dtype) {
    case DType::F16: return 0x1.0p-11;
    case DType::BF16: return 0x1.0p-8;
    case DType::F32: return 0x1.0p-24;
    case DType::F64: return 0x1.0p-53;
    default: return 0;
  }
}

double rounding_coefficient(DType dtype, double fan_in) { return unit_roundoff(dtype) * std::sqrt(std::max(1.0, fan_in)); }

double mean_abs(const HostBuffer& buffer) {
  if (buffer.count <= 0) return 0;
  const std::int64_t stride = std::max<std::int64_t>(1, buffer.count >> 20);
  double sum = 0;
  std::int64_t used = 0;
  for (std::int64_t i = 0; i < buffer.count; i += stride) {
    const double value = buffer.get(i);
    if (!std::isfinite(value)) continue;
    sum += std::fabs(value);
    ++used;
  }
  return used ? sum / static_cast<double>(used) : 0;
}

double mean_abs_inputs(const std::vector<ArgPlan>& args, const std::vector<HostBuffer>& inputs) {
  double sum = 0, count = 0;
  for (std::size_t i = 0; i < args.size() && i < inputs.size(); ++i) {
    const ArgPlan& arg = args[i];
    if ((arg.role != ArgRole::Input && arg.role != ArgRole::InOut) || !is_floating(arg.dtype)) continue;
    sum += mean_abs(inputs[i]) * static_cast<double>(inputs[i].count);
    count += static_cast<double>(inputs[i].count);
  }
  return count > 0 ? sum / count : 0;
}

Tolerance tolerance_for_draw(const OutputTolerance& base, DType dtype, bool manifest_draw, const HostBuffer& expected,
                             double input_mean_abs) {
  Tolerance tolerance{base.atol, base.rtol};
  if (manifest_draw || !is_floating(dtype)) return tolerance;
  if (base.scale > 0) tolerance.atol *= std::max(1.0, mean_abs(expected) / base.scale);
  const double k = rounding_coefficient(dtype, base.fan_in);
  tolerance.atol = std::max(tolerance.atol, k * std::sqrt(std::max(1.0, base.fan_in)) * input_mean_abs);
  tolerance.rtol = std::max(tolerance.rtol, k);
  return tolerance;
}

}  // namespace kforge
