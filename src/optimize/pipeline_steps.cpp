#include "optimize/pipeline_steps.h"

#include <array>

#include "util/log.h"

namespace kforge::optimize {
namespace {

constexpr std::array<const char*, 6> kTitles = {"detect",   "profile", "baseline",
                                                 "evolve",   "final verification", "report"};

}  // namespace

void announce_step(PipelineStep step, const std::string& detail) {
  const auto index = static_cast<std::size_t>(step);
  log::step(static_cast<int>(index) + 1, static_cast<int>(kTitles.size()), kTitles[index] + detail);
}

}  // namespace kforge::optimize
