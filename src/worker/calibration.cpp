#include "worker/calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <functional>

namespace kforge {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// At most this many elements take part in the comparisons (evenly spaced): enough to decide
// for large outputs, all of them for reductions.
constexpr std::int64_t kSampled = 1 << 16;

std::int64_t stride_for(std::int64_t count) { return std::max<std::int64_t>(1, count / kSampled); }

double allowed(const Tolerance& tolerance, double expected) { return tolerance.atol + tolerance.rtol * std::fabs(expected); }

// The smallest factor f such that `answer` passes against `expected` under f x tolerance
// (elements where either side is not finite are left out).
double pass_factor(const HostBuffer& answer, const HostBuffer& expected, const Tolerance& tolerance) {
  double factor = 0;
  for (std::int64_t i = 0; i < expected.count; i += stride_for(expected.count)) {
    const double e = expected.get(i), a = answer.get(i);
    if (!std::isfinite(e) || !std::isfinite(a)) continue;
    const double error = std::fabs(a - e), limit = allowed(tolerance, e);
    factor = std::max(factor, limit > 0 ? error / limit : (error > 0 ? kInfinity : 0.0));
  }
  return factor;
}

// The same for the constant answer `value` everywhere.
double constant_pass_factor(double value, const HostBuffer& expected, const Tolerance& tolerance) {
  double factor = 0;
  for (std::int64_t i = 0; i < expected.count; i += stride_for(expected.count)) {
    const double e = expected.get(i);
    if (!std::isfinite(e)) continue;
    const double error = std::fabs(value - e), limit = allowed(tolerance, e);
    factor = std::max(factor, limit > 0 ? error / limit : (error > 0 ? kInfinity : 0.0));
  }
  return factor;
}

// Mean of the finite elements (sampled like the comparisons).
double mean(const HostBuffer& buffer) {
  double sum = 0;
  std::int64_t used = 0;
  for (std::int64_t i = 0; i < buffer.count; i += stride_for(buffer.count)) {
    const double value = buffer.get(i);
    if (std::isfinite(value)) {
      sum += value;
      ++used;
    }
  }
  return used ? sum / static_cast<double>(used) : 0;
}

std::string format(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

}  // namespace

std::vector<OutputCalibration> calibrate_outputs(const TaskPlan& task, const LaunchPlan& launch,
                                                 const std::vector<std::vector<HostBuffer>>& inputs,
                                                 const std::vector<std::vector<HostBuffer>>& expected) {
  std::vector<OutputCalibration> results;
  const std::size_t seeds = expected.size();
  for (std::size_t i = 0; i < task.args.size(); ++i) {
    const ArgPlan& arg = task.args[i];
    if (arg.role != ArgRole::Output && arg.role != ArgRole::InOut) continue;
    OutputCalibration out;
    out.name = arg.name;
    out.manifest = arg.tolerance;
    out.tolerance = {out.manifest.atol, out.manifest.rtol, 0, launch.fan_in[i]};
    double magnitude = 0;
    for (const auto& e : expected) magnitude += mean_abs(e[i]) / static_cast<double>(seeds);
    out.tolerance.scale = magnitude;
    if (!is_floating(arg.dtype) || (out.manifest.atol == 0 && out.manifest.rtol == 0) || seeds < 2) {
      out.note = "compared exactly";
      results.push_back(out);
      continue;
    }
    out.input_independent = std::all_of(expected.begin(), expected.end(),
                                        [&](const auto& e) { return checksum(e[i]) == checksum(expected[0][i]); });
    if (out.input_independent) {
      out.note = "the reference writes the same values for every input; tolerance kept";
      results.push_back(out);
      continue;
    }
    // Honest rounding: u sqrt(m) max(|y|, sqrt(m) mean|x|) (check_tolerance.h).
    const double k = rounding_coefficient(arg.dtype, out.tolerance.fan_in);
    out.pass_factor = kInfinity;
    for (std::size_t s = 0; s < seeds; ++s) {
      const HostBuffer& e = expected[s][i];
      const double walk = std::sqrt(out.tolerance.fan_in) * mean_abs_inputs(task.args, inputs[s]);
      for (std::int64_t j = 0; j < e.count; j += stride_for(e.count)) {
        const double value = e.get(j), limit = allowed(out.manifest, value);
        if (std::isfinite(value) && limit > 0)
          out.floor_factor = std::max(out.floor_factor, k * std::max(std::fabs(value), walk) / limit);
      }
      for (std::size_t other = 0; other < seeds; ++other) {
        if (other == s) continue;
        out.pass_factor = std::min(out.pass_factor, pass_factor(expected[other][i], e, out.manifest));
        out.pass_factor = std::min(out.pass_factor, constant_pass_factor(mean(expected[other][i]), e, out.manifest));
      }
    }
    const double wanted = out.pass_factor / kMargin;
    out.factor = std::min(1.0, std::max(wanted, out.floor_factor));
    out.tolerance.atol = out.manifest.atol * out.factor;
    out.tolerance.rtol = out.manifest.rtol * out.factor;
    const std::string manifest_text = "atol " + format(out.manifest.atol) + ", rtol " + format(out.manifest.rtol);
    const std::string tight_text = "atol " + format(out.tolerance.atol) + ", rtol " + format(out.tolerance.rtol);
    if (out.factor >= out.pass_factor) {
      out.warning = "output '" + arg.name + "': the tolerance cannot tell an input-free answer from the reference: " +
                    "another input's reference output (or its mean) passes within " + tight_text +
                    ", and a tighter one would reject honest f" + std::to_string(8 * dtype_size(arg.dtype)) +
                    " rounding of sums of ~" + format(out.tolerance.fan_in) + " terms; other sizes and draws must decide";
    }
    if (out.factor < 1) {
      out.note = "tolerance tightened from " + manifest_text + " to " + tight_text + ": within the manifest's, another " +
                 "input's reference output (or its mean) would pass (at x" + format(out.pass_factor) + ")";
    } else {
      out.note = "manifest tolerance kept: an input-free answer misses it by x" + format(out.pass_factor);
    }
    results.push_back(out);
  }
  return results;
}

}  // namespace kforge
