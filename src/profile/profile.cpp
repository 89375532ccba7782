#include "profile/profile.h"

namespace kforge {
namespace {
using nlohmann::json;

void put_optional(json& out, const char* key, const std::optional<double>& value) {
  if (value) out[key] = *value;
}

std::optional<double> get_optional(const json& in, const char* key) {
  if (!in.contains(key) || !in[key].is_number()) return std::nullopt;
  return in[key].get<double>();
}

double get_number(const json& in, const char* key) { return get_optional(in, key).value_or(0.0); }

std::string get_text(const json& in, const char* key) {
  return in.contains(key) && in[key].is_string() ? in[key].get<std::string>() : std::string();
}

json occupancy_json(const KernelProfile& profile) {
  json occupancy = json::object();
  put_optional(occupancy, "achieved_pct", profile.achieved_occupancy_pct);
  put_optional(occupancy, "theoretical_pct", profile.theoretical_occupancy_pct);
  return occupancy;
}

std::vector<Limiter> limiters_from_json(const json& in) {
  std::vector<Limiter> limiters;
  if (!in.contains("limiters") || !in["limiters"].is_array()) return limiters;
  const json suggestions = in.value("suggestions", json::array());
  for (std::size_t i = 0; i < in["limiters"].size(); ++i) {
    if (!in["limiters"][i].is_string()) continue;
    Limiter limiter{in["limiters"][i].get<std::string>(), ""};
    if (suggestions.is_array() && i < suggestions.size() && suggestions[i].is_string())
      limiter.suggestion = suggestions[i].get<std::string>();
    limiters.push_back(std::move(limiter));
  }
  return limiters;
}
}  // namespace

std::string to_string(Bound bound) {
  switch (bound) {
    case Bound::Memory: return "memory";
    case Bound::Compute: return "compute";
    case Bound::Latency: return "latency";
    case Bound::Unknown: return "unknown";
  }
  return "unknown";
}

Bound parse_bound(const std::string& text) {
  if (text == "memory") return Bound::Memory;
  if (text == "compute") return Bound::Compute;
  if (text == "latency") return Bound::Latency;
  return Bound::Unknown;
}

std::string to_string(ProfileSource source) {
  switch (source) {
    case ProfileSource::Ncu: return "ncu";
    case ProfileSource::RocprofCompute: return "rocprof-compute";
    case ProfileSource::Rocprofv3: return "rocprofv3";
    case ProfileSource::Analytic: return "analytic";
  }
  return "analytic";
}

ProfileSource parse_profile_source(const std::string& text) {
  if (text == "ncu") return ProfileSource::Ncu;
  if (text == "rocprof-compute") return ProfileSource::RocprofCompute;
  if (text == "rocprofv3") return ProfileSource::Rocprofv3;
  return ProfileSource::Analytic;
}

json to_json(const KernelProfile& profile) {
  json out = {{"source", to_string(profile.source)},
              {"source_note", profile.source_note},
              {"kernel", profile.kernel_name},
              {"bound", to_string(profile.bound)},
              {"duration_ms", profile.duration_ms},
              {"arithmetic_intensity", profile.arithmetic_intensity},
              {"achieved_gbps", profile.achieved_gbps},
              {"achieved_gflops", profile.achieved_gflops},
              {"peak_gbps", profile.peak_gbps},
              {"peak_gflops", profile.peak_gflops},
              {"bandwidth_pct", profile.bandwidth_pct},
              {"compute_pct", profile.compute_pct}};
  put_optional(out, "sm_throughput_pct", profile.sm_throughput_pct);
  put_optional(out, "memory_throughput_pct", profile.memory_throughput_pct);
  put_optional(out, "dram_throughput_pct", profile.dram_throughput_pct);
  put_optional(out, "l1_hit_rate_pct", profile.l1_hit_rate_pct);
  put_optional(out, "l2_hit_rate_pct", profile.l2_hit_rate_pct);
  if (json occupancy = occupancy_json(profile); !occupancy.empty()) out["occupancy"] = occupancy;
  if (profile.registers_per_thread) out["registers"] = *profile.registers_per_thread;
  json limiters = json::array(), suggestions = json::array();
  for (const auto& limiter : profile.limiters) {
    limiters.push_back(limiter.finding);
    suggestions.push_back(limiter.suggestion);
  }
  out["limiters"] = limiters;
  out["suggestions"] = suggestions;
  out["metrics"] = profile.metrics;
  return out;
}

KernelProfile profile_from_json(const json& in) {
  KernelProfile profile;
  if (!in.is_object()) return profile;
  profile.source = parse_profile_source(get_text(in, "source"));
  profile.source_note = get_text(in, "source_note");
  profile.kernel_name = get_text(in, "kernel");
  profile.bound = parse_bound(get_text(in, "bound"));
  profile.duration_ms = get_number(in, "duration_ms");
  profile.arithmetic_intensity = get_number(in, "arithmetic_intensity");
  profile.achieved_gbps = get_number(in, "achieved_gbps");
  profile.achieved_gflops = get_number(in, "achieved_gflops");
  profile.peak_gbps = get_number(in, "peak_gbps");
  profile.peak_gflops = get_number(in, "peak_gflops");
  profile.bandwidth_pct = get_number(in, "bandwidth_pct");
  profile.compute_pct = get_number(in, "compute_pct");
  profile.sm_throughput_pct = get_optional(in, "sm_throughput_pct");
  profile.memory_throughput_pct = get_optional(in, "memory_throughput_pct");
  profile.dram_throughput_pct = get_optional(in, "dram_throughput_pct");
  profile.l1_hit_rate_pct = get_optional(in, "l1_hit_rate_pct");
  profile.l2_hit_rate_pct = get_optional(in, "l2_hit_rate_pct");
  if (in.contains("occupancy") && in["occupancy"].is_object()) {
    profile.achieved_occupancy_pct = get_optional(in["occupancy"], "achieved_pct");
    profile.theoretical_occupancy_pct = get_optional(in["occupancy"], "theoretical_pct");
  }
  if (auto registers = get_optional(in, "registers")) profile.registers_per_thread = static_cast<int>(*registers);
  profile.limiters = limiters_from_json(in);
  if (in.contains("metrics") && in["metrics"].is_object())
    for (const auto& [name, value] : in["metrics"].items())
      if (value.is_number()) profile.metrics[name] = value.get<double>();
  return profile;
}

}  // namespace kforge
