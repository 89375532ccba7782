// AMD profilers: rocprofv3 (kernel trace and counter collection CSVs) and rocprof-compute
// (the analysis tables of `rocprof-compute analyze`), parsed into KernelProfiles.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profile/ncu.h"  // TaskWork
#include "profile/profile.h"
#include "profile/roofline.h"

namespace kforge {

// One kernel dispatch from rocprofv3's kernel_trace.csv.
struct RocDispatch {
  std::string kernel_name;
  std::string dispatch_id;  // Dispatch_Id, else Correlation_Id
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::int64_t workgroup_size = 0;  // X*Y*Z
  std::int64_t grid_size = 0;       // X*Y*Z work-items
  std::int64_t lds_bytes = 0;       // Group_Segment_Size / LDS_Block_Size
  std::int64_t scratch_bytes = 0;   // Private_Segment_Size / Scratch_Size
  std::optional<int> vgprs;
  std::optional<int> sgprs;
  double duration_ms() const { return static_cast<double>(end_ns - start_ns) / 1e6; }
};

// Counters of one dispatch from rocprofv3's counter_collection.csv (one row per counter).
struct RocCounterDispatch {
  std::string kernel_name;
  std::string dispatch_id;
  std::map<std::string, double> counters;
};

// A metric row of rocprof-compute analyze: "Metric", "Avg"/"Value", "Unit", and where the
// table has them "Peak" and "Pct of Peak".
struct RocComputeMetric {
  double value = 0;
  std::string unit;
  std::optional<double> peak;
  std::optional<double> pct_of_peak;
};

// All parsers skip malformed lines and never throw; a missing column leaves its field empty.
std::vector<RocDispatch> parse_rocprofv3_kernel_trace(const std::string& csv_text);
std::vector<RocCounterDispatch> parse_rocprofv3_counters(const std::string& csv_text);
// Accepts the CSV files `analyze --save-dfs` writes (several tables may be concatenated)
// and the box-drawn tables it prints to the terminal. Later duplicates of a metric are ignored.
std::map<std::string, RocComputeMetric> parse_rocprof_compute_analysis(const std::string& text);

// Last dispatch of a kernel whose name starts with `kernel` (HIP names carry a parameter list).
std::optional<RocDispatch> find_dispatch(const std::vector<RocDispatch>& dispatches, const std::string& kernel);

KernelProfile profile_from_rocprofv3(const RocDispatch& dispatch, const RocCounterDispatch* counters,
                                     const TaskWork& work, const DevicePeaks& peaks);
KernelProfile profile_from_rocprof_compute(const std::map<std::string, RocComputeMetric>& metrics,
                                           std::optional<double> duration_ms, const TaskWork& work,
                                           const DevicePeaks& peaks);

// `rocprofv3 --kernel-trace [--pmc ...] --output-format csv -d DIR -- TARGET...`
std::vector<std::string> rocprofv3_command(const std::filesystem::path& rocprofv3, const std::filesystem::path& out_dir,
                                           const std::vector<std::string>& counters,
                                           const std::vector<std::string>& target);
// Files under `dir` (searched recursively, as rocprofv3 nests them by host and pid) whose
// names end in `suffix`, e.g. "kernel_trace.csv".
std::vector<std::filesystem::path> find_outputs(const std::filesystem::path& dir, const std::string& suffix);

}  // namespace kforge
