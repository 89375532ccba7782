// What numbers each correctness check feeds a task's arguments. The first seed of every size
// uses the manifest's `init`; the other seeds (and one extra seed the evaluator always adds)
// draw from distributions the reference handles but shortcuts often do not: wider ranges, large
// magnitudes, zeros / negative zeros / subnormals, ties, and whatever the manifest declares in
// `check_inits`. docs/TASK_FORMAT.md ("Check inputs") lists exactly what is drawn.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/plan.h"

namespace kforge {

inline constexpr const char* kManifestDraw = "manifest";

// Floating-point inputs/inouts with a uniform or normal init and adversarial not set to false.
// Integer arguments (indices, bins) and constant inits (ones: scratch counters) keep their init.
bool takes_builtin_draws(const ArgPlan& arg);

// The draws checks rotate through after the manifest's own: "declared1", "declared2", ... (one
// per position of the longest check_inits), then "wide", "large", "special", "ties" if some
// argument takes built-in draws. Empty when no argument takes anything but its init.
std::vector<std::string> check_draws(const std::vector<ArgPlan>& args);

// One draw resolved per argument.
struct DrawPlan {
  std::string draw;                        // "manifest", "large", "declared1", ...
  std::vector<std::string> distributions;  // per argument; empty for outputs and scalars
  std::vector<bool> drawn;                 // true where the argument gets something else than its init
  bool any_drawn() const;
  bool finite_inputs() const;              // no argument draws NaN or inf on purpose
  std::string describe(const std::vector<ArgPlan>& args) const;  // "'large' (x = large(1000,10000))"
};
DrawPlan plan_draw(const std::vector<ArgPlan>& args, const std::string& draw);
// `plan` with the arguments not in `keep` back at their init.
DrawPlan keep_only(const std::vector<ArgPlan>& args, const DrawPlan& plan, const std::vector<bool>& keep);

// Draw names for each size's seeds: the first seed of every size is "manifest", the others
// continue through `draws` across sizes. Each size gets max(seeds, enough that every draw is
// used once per evaluation) seeds.
std::vector<std::vector<std::string>> draws_per_size(std::size_t sizes, int seeds_per_size,
                                                     const std::vector<std::string>& draws);

// Tolerance calibration (worker/calibration.h) runs the reference on these fixed seeds, so the
// same task calibrates to the same tolerances on every run.
inline constexpr int kCalibrationSeeds = 3;
std::vector<std::uint64_t> calibration_seeds(const std::string& size_name);

}  // namespace kforge
