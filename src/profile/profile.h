// A kernel's performance profile: where it sits on the roofline, what bounds it and why.
// Filled from Nsight Compute, rocprof / rocprof-compute or the analytic roofline; stored as
// the candidate's `profile` JSON (the report's roofline reads the keys to_json writes).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kforge {

enum class Bound { Memory, Compute, Latency, Unknown };
std::string to_string(Bound bound);
Bound parse_bound(const std::string& text);  // Unknown for anything unrecognised

// Where the numbers came from.
enum class ProfileSource { Ncu, RocprofCompute, Rocprofv3, Analytic };
std::string to_string(ProfileSource source);
ProfileSource parse_profile_source(const std::string& text);  // Analytic when unrecognised

// One thing holding the kernel back, with what to try about it.
struct Limiter {
  std::string finding;     // "DRAM throughput at 91% of peak"
  std::string suggestion;  // "move fewer bytes: reuse data through shared memory"
};

struct KernelProfile {
  ProfileSource source = ProfileSource::Analytic;
  std::string source_note;  // why this source: "ncu not found", "counters not permitted"...
  std::string kernel_name;  // as the profiler reported it
  Bound bound = Bound::Unknown;

  double duration_ms = 0;            // latency the profile is based on
  double arithmetic_intensity = 0;   // FLOP per DRAM byte
  double achieved_gbps = 0;
  double achieved_gflops = 0;
  double peak_gbps = 0;
  double peak_gflops = 0;
  double bandwidth_pct = 0;          // achieved / peak, in percent
  double compute_pct = 0;

  // Hardware-counter figures; absent under the analytic roofline.
  std::optional<double> sm_throughput_pct;
  std::optional<double> memory_throughput_pct;  // max over the memory units (ncu's "Memory Throughput")
  std::optional<double> dram_throughput_pct;
  std::optional<double> achieved_occupancy_pct;
  std::optional<double> theoretical_occupancy_pct;
  std::optional<double> l1_hit_rate_pct;
  std::optional<double> l2_hit_rate_pct;
  std::optional<int> registers_per_thread;

  std::vector<Limiter> limiters;          // most important first
  std::map<std::string, double> metrics;  // raw metrics, normalised units (see unit in name)
};

// Keys: source, source_note, kernel, bound, duration_ms, arithmetic_intensity,
// achieved_gbps, achieved_gflops, peak_gbps, peak_gflops, bandwidth_pct, compute_pct,
// sm_throughput_pct, memory_throughput_pct, dram_throughput_pct, occupancy
// {achieved_pct, theoretical_pct}, l1_hit_rate_pct, l2_hit_rate_pct, registers,
// limiters [strings], suggestions [strings, parallel to limiters], metrics {name: value}.
nlohmann::json to_json(const KernelProfile& profile);
// Tolerant: missing or mistyped keys keep their defaults.
KernelProfile profile_from_json(const nlohmann::json& json);

}  // namespace kforge
