#include "search/llm_operators/diagnosis.h"

#include <fmt/format.h>

#include "profile/profile.h"
#include "profile/profiler.h"

namespace kforge {
namespace {

int stat(const nlohmann::json& stats, const char* key) {
  return stats.is_object() && stats.contains(key) && stats[key].is_number_integer() ? stats[key].get<int>() : -1;
}

// The profiler renders resources from a CompileResult; the store keeps them as JSON.
CompileResult compile_result_from(const nlohmann::json& stats) {
  CompileResult compiled;
  compiled.ok = stats.is_object() && stats.value("ok", false);
  compiled.registers = stat(stats, "registers");
  compiled.shared_bytes = stat(stats, "shared_bytes");
  compiled.local_bytes = stat(stats, "local_bytes");
  compiled.spill_bytes = stat(stats, "spill_bytes");
  compiled.max_threads_per_block = stat(stats, "max_threads_per_block");
  return compiled;
}

std::string resources_text(const nlohmann::json& stats) {
  std::string text;
  const auto add = [&](const char* label, int value, const char* unit) {
    if (value >= 0) text += fmt::format("{}{} {}{}", text.empty() ? "" : ", ", label, value, unit);
  };
  add("registers/thread", stat(stats, "registers"), "");
  add("shared", stat(stats, "shared_bytes"), " B");
  add("local", stat(stats, "local_bytes"), " B");
  add("spills", stat(stats, "spill_bytes"), " B");
  return text.empty() ? "resources: not reported by this backend\n" : "resources: " + text + "\n";
}

}  // namespace

std::string bandwidth_diagnosis(const DiagnosisFacts& facts) {
  std::string text;
  if (facts.median_ms > 0) text += fmt::format("latency: {:.4f} ms\n", facts.median_ms);
  if (facts.achieved_gbps > 0 && facts.copy_gbps > 0) {
    const double pct = 100.0 * facts.achieved_gbps / facts.copy_gbps;
    text += fmt::format("bandwidth: {:.1f} GB/s = {:.0f}% of the measured copy bandwidth ({:.1f} GB/s)\n",
                        facts.achieved_gbps, pct, facts.copy_gbps);
    // Thresholds are rough on purpose: the point is to steer the model, not to classify.
    if (pct >= 70)
      text += "reading: close to the memory roof; only moving fewer bytes (fusion, reuse, narrower types) helps much\n";
    else if (pct >= 30)
      text += "reading: memory traffic is significant but below the roof; wider/coalesced accesses and more bytes "
              "in flight per work-item may help\n";
    else
      text += "reading: far below the memory roof; launch overhead, too little parallelism, uncoalesced access or "
              "compute/latency limits dominate\n";
  } else if (facts.achieved_gbps > 0) {
    text += fmt::format("bandwidth: {:.1f} GB/s (device copy bandwidth unknown)\n", facts.achieved_gbps);
  }
  text += resources_text(facts.compile_stats);
  if (stat(facts.compile_stats, "spill_bytes") > 0)
    text += "note: register spills go to slow local memory; reduce live values or unrolling\n";
  return text;
}

std::string measured_diagnosis(const DiagnosisFacts& facts) {
  if (facts.profile.is_object() && !facts.profile.empty())
    return diagnosis(profile_from_json(facts.profile), compile_result_from(facts.compile_stats));
  return bandwidth_diagnosis(facts);
}

}  // namespace kforge
