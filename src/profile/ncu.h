// Nsight Compute: the command line kforge runs, the parser for its CSV pages and the
// translation of its metrics into a KernelProfile (bound, roofline position, limiters).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profile/profile.h"
#include "profile/roofline.h"

namespace kforge {

struct NcuMetric {
  std::string section;  // "GPU Speed Of Light Throughput"; "" on the raw page
  std::string unit;     // as ncu printed it
  double value = 0;     // in base units (see units.h): bytes, seconds, byte/second, hertz, %
  std::string base_unit;
};

// One finding of ncu's rule engine (the details page's "Rule ..." columns).
struct NcuRule {
  std::string section;      // "Occupancy"
  std::string name;         // "AchievedOccupancy"
  std::string type;         // "OPT" (an optimisation), "INF" (information), "WRN", "ERR"
  std::string description;  // ncu's text
  std::string speedup_type;  // "local" or "global"
  std::optional<double> estimated_speedup;  // in percent; absent when ncu gives none
};

struct NcuKernel {
  std::string id;  // ncu's launch ID
  std::string name;
  std::string block_size;  // "(256, 1, 1)"
  std::string grid_size;
  std::string device;
  std::string compute_capability;
  std::map<std::string, NcuMetric> metrics;  // by metric name
  std::vector<NcuRule> rules;                // in report order
  std::optional<double> get(const std::string& metric) const;
};

struct NcuParse {
  std::vector<NcuKernel> kernels;  // in launch order
  int skipped_lines = 0;           // garbled rows that were ignored
  int non_numeric_values = 0;      // values that are text ("n/a", configuration names)
};

// Parses `ncu --csv --page details` (one row per metric) or `--page raw` (one row per
// kernel, a units row under the header) output. Never throws: text without a recognisable
// table yields no kernels. Banner lines and program output before the table are ignored.
NcuParse parse_ncu_csv(const std::string& text);

// Sections kforge asks for, and raw counters added so bytes and flops are measured, not assumed.
const std::vector<std::string>& ncu_default_sections();
const std::vector<std::string>& ncu_default_metrics();

struct NcuInvocation {
  std::filesystem::path ncu = "ncu";
  std::string kernel;            // entry point name (unmangled)
  std::filesystem::path report;  // -o target; ncu appends .ncu-rep
  int launch_skip = 2;           // the worker's warm-up launches come first: profile a warm one
  int launch_count = 1;
  std::vector<std::string> sections = ncu_default_sections();
  std::vector<std::string> metrics = ncu_default_metrics();
  std::vector<std::string> target;  // the program ncu runs and its arguments
};

// ncu name filter matching `kernel` as a whole identifier, with or without template
// arguments or a parameter list after it.
std::string ncu_kernel_filter(const std::string& kernel);
std::vector<std::string> ncu_profile_command(const NcuInvocation& invocation);
std::vector<std::string> ncu_import_command(const std::filesystem::path& ncu, const std::filesystem::path& report_file);

// Why an ncu run produced no profile, in words; empty when the output holds a profile.
struct NcuFailure {
  std::string reason;
  bool counters_forbidden = false;  // ERR_NVGPUCTRPERM: will not change within this process
};
NcuFailure diagnose_ncu_failure(int exit_code, const std::string& output);

// What the task says the kernel does, for figures ncu does not measure directly.
struct TaskWork {
  double bytes = 0;
  std::optional<double> flops;
};

// Throughput percentages at or above this count as "the unit is busy" (ncu's own guidance:
// under 60% of peak on both compute and memory points at latency problems).
inline constexpr double kBusyPct = 60;

// ncu's own rule findings with an estimated speedup join the limiters, largest speedup first.
inline constexpr std::size_t kMaxRuleLimiters = 3;

Bound classify_ncu(const NcuKernel& kernel);
// The bound's limiter, occupancy / waves / L2 findings, then up to kMaxRuleLimiters ncu rules.
std::vector<Limiter> ncu_limiters(const NcuKernel& kernel, Bound bound);
KernelProfile profile_from_ncu(const NcuKernel& kernel, const TaskWork& work, const DevicePeaks& peaks);

}  // namespace kforge
