#include "protocol/check_inputs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>

namespace kforge {
namespace {

struct Range {
  double lo = -1, hi = 1;
};

// The manifest range of a uniform(a,b) or normal(m,s) init (normal: m ± 3 s).
std::optional<Range> init_range(const std::string& init) {
  double a = 0, b = 0;
  char tail = 0;
  if (std::sscanf(init.c_str(), " uniform ( %lf , %lf ) %c", &a, &b, &tail) == 2) return Range{std::min(a, b), std::max(a, b)};
  if (std::sscanf(init.c_str(), " normal ( %lf , %lf ) %c", &a, &b, &tail) == 2)
    return Range{a - 3 * std::fabs(b), a + 3 * std::fabs(b)};
  return std::nullopt;
}

std::string number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string call(const char* name, double a, double b) { return std::string(name) + "(" + number(a) + "," + number(b) + ")"; }

double largest_finite(DType dtype) {
  switch (dtype) {
    case DType::F16: return 65504;
    case DType::BF16:
    case DType::F32: return std::numeric_limits<float>::max();
    default: return std::numeric_limits<double>::max();
  }
}

// The built-in draw `draw` for an argument that takes built-in draws.
std::string builtin_distribution(const ArgPlan& arg, const std::string& draw) {
  const Range range = init_range(arg.init).value_or(Range{});
  const double center = (range.lo + range.hi) / 2;
  double half = (range.hi - range.lo) / 2;
  if (half <= 0) half = std::max(std::fabs(center), 1.0);
  if (draw == "wide") return call("uniform", center - 16 * half, center + 16 * half);
  if (draw == "large") {
    // 1e3..1e4 (1e2..1e3 for f16), and at least 10x the manifest's own magnitudes.
    const double base = arg.dtype == DType::F16 ? 1e2 : 1e3;
    const double low = std::max(base, 10 * std::max(std::fabs(range.lo), std::fabs(range.hi)));
    const double high = std::min(10 * low, largest_finite(arg.dtype) / 16);
    return call("large", std::min(low, high / 10), high);
  }
  if (draw == "special") return call("special", range.lo, range.hi);
  return call("ties", range.lo, range.hi);  // "ties"
}

const std::vector<std::string> kBuiltinDraws{"wide", "large", "special", "ties"};

}  // namespace

bool takes_builtin_draws(const ArgPlan& arg) {
  return arg.adversarial && is_floating(arg.dtype) && (arg.role == ArgRole::Input || arg.role == ArgRole::InOut) &&
         init_range(arg.init).has_value();
}

std::vector<std::string> check_draws(const std::vector<ArgPlan>& args) {
  std::vector<std::string> draws;
  std::size_t declared = 0;
  for (const auto& arg : args) declared = std::max(declared, arg.check_inits.size());
  for (std::size_t i = 0; i < declared; ++i) draws.push_back("declared" + std::to_string(i + 1));
  if (std::any_of(args.begin(), args.end(), takes_builtin_draws))
    draws.insert(draws.end(), kBuiltinDraws.begin(), kBuiltinDraws.end());
  return draws;
}

bool DrawPlan::any_drawn() const { return std::find(drawn.begin(), drawn.end(), true) != drawn.end(); }

bool DrawPlan::finite_inputs() const {
  return std::none_of(distributions.begin(), distributions.end(),
                      [](const std::string& d) { return d.rfind("nonfinite", 0) == 0; });
}

std::string DrawPlan::describe(const std::vector<ArgPlan>& args) const {
  std::string parts;
  for (std::size_t i = 0; i < args.size() && i < drawn.size(); ++i)
    if (drawn[i]) parts += (parts.empty() ? "" : ", ") + args[i].name + " = " + distributions[i];
  return "'" + draw + "'" + (parts.empty() ? "" : " (" + parts + ")");
}

DrawPlan plan_draw(const std::vector<ArgPlan>& args, const std::string& draw) {
  DrawPlan plan;
  plan.draw = draw;
  const bool declared = draw.rfind("declared", 0) == 0;
  const std::size_t position = declared ? std::stoul(draw.substr(8)) - 1 : 0;
  for (const auto& arg : args) {
    std::string distribution = arg.init;
    if (draw != kManifestDraw && (arg.role == ArgRole::Input || arg.role == ArgRole::InOut)) {
      if (declared && position < arg.check_inits.size()) distribution = arg.check_inits[position];
      else if (!declared && takes_builtin_draws(arg)) distribution = builtin_distribution(arg, draw);
    }
    plan.drawn.push_back(distribution != arg.init);
    plan.distributions.push_back(arg.role == ArgRole::Scalar || arg.role == ArgRole::Output ? "" : distribution);
  }
  return plan;
}

DrawPlan keep_only(const std::vector<ArgPlan>& args, const DrawPlan& plan, const std::vector<bool>& keep) {
  DrawPlan kept = plan;
  for (std::size_t i = 0; i < args.size(); ++i)
    if (kept.drawn[i] && !keep[i]) {
      kept.drawn[i] = false;
      kept.distributions[i] = args[i].init;
    }
  return kept;
}

std::vector<std::vector<std::string>> draws_per_size(std::size_t sizes, int seeds_per_size,
                                                     const std::vector<std::string>& draws) {
  std::vector<std::vector<std::string>> result(sizes);
  if (sizes == 0) return result;
  std::size_t seeds = static_cast<std::size_t>(std::max(seeds_per_size, 1));
  if (!draws.empty()) seeds = std::max(seeds, 1 + (draws.size() + sizes - 1) / sizes);
  std::size_t next = 0;
  for (auto& size_draws : result) {
    size_draws.push_back(kManifestDraw);
    for (std::size_t s = 1; s < seeds; ++s)
      size_draws.push_back(draws.empty() ? std::string(kManifestDraw) : draws[next++ % draws.size()]);
  }
  return result;
}

std::vector<std::uint64_t> calibration_seeds(const std::string& size_name) {
  std::vector<std::uint64_t> seeds;
  for (int k = 0; k < kCalibrationSeeds; ++k)
    seeds.push_back(std::hash<std::string>{}("kforge calibration " + size_name + " " + std::to_string(k)) >> 1);
  return seeds;
}

}  // namespace kforge
