// The six steps of `kforge optimize` and their "[i/6] title" banners: the only place that
// numbers them, so adding or reordering a step is one edit here.
#pragma once

#include <string>

namespace kforge::optimize {

enum class PipelineStep { Detect, Profile, Baseline, Evolve, FinalVerification, Report };

// Prints the step's banner; `detail` follows the title (", 8 generations x ...").
void announce_step(PipelineStep step, const std::string& detail = "");

}  // namespace kforge::optimize
