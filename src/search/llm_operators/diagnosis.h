// The measured facts behind a bottleneck diagnosis, as text for the LLM: what bounds the
// kernel and what the compiler reports about its resources. With a stored profile it is the
// profiler's own diagnosis; without one (no profiler ran) it is built here from the compile
// statistics and the achieved bandwidth against the device's measured copy bandwidth.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace kforge {

struct DiagnosisFacts {
  double median_ms = 0;           // 0: not measured (a failed candidate)
  double achieved_gbps = 0;       // from the candidate's metrics; 0 when unknown
  double copy_gbps = 0;           // device-to-device copy bandwidth: the practical memory roof
  nlohmann::json compile_stats;   // compile_stats_json(): registers, shared_bytes, spills...
  nlohmann::json profile;         // the candidate's stored profile, null when none
};

std::string measured_diagnosis(const DiagnosisFacts& facts);

// The fallback when there is no profile: bandwidth utilisation and compiler resources only.
std::string bandwidth_diagnosis(const DiagnosisFacts& facts);

}  // namespace kforge
