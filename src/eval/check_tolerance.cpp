#include "eval/check_tolerance.h"

#include <algorithm>
#include <cmath>

namespace kforge {

nlohmann::json to_json(const OutputTolerance& tolerance) {
  return {{"atol", tolerance.atol}, {"rtol", tolerance.rtol}, {"scale", tolerance.scale}, {"fan_in", tolerance.fan_in}};
}

OutputTolerance output_tolerance_from_json(const nlohmann::json& json) {
  OutputTolerance tolerance;
  tolerance.atol = json.value("atol", 0.0);
  tolerance.rtol = json.value("rtol", 0.0);
  tolerance.scale = json.value("scale", 0.0);
  tolerance.fan_in = json.value("fan_in", 1.0);
  return tolerance;
}

double unit_roundoff(DType dtype) {
  switch (dtype) {
    case DType::F16: return 0x1.0p-11;
    case DType::BF16: return 0x1.0p-8;
    case DType::F32: return 0x1.0p-24;
    case DType::F64: return 0x1.0p-53;
    default: return 0;
  }
}

double fan_in(const Task& task, const Bindings& bindings, std::size_t output) {
  double inputs = 0;
  for (const auto& arg : task.args)
    if ((arg.role == ArgRole::Input || arg.role == ArgRole::InOut) && is_floating(arg.dtype))
      inputs += static_cast<double>(element_count(arg, bindings));
  const double outputs = static_cast<double>(std::max<std::int64_t>(1, element_count(task.args[output], bindings)));
  return std::max(1.0, inputs / outputs);
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

double mean_abs_inputs(const Task& task, const std::vector<HostBuffer>& inputs) {
  double sum = 0, count = 0;
  for (std::size_t i = 0; i < task.args.size() && i < inputs.size(); ++i) {
    const ArgSpec& arg = task.args[i];
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
