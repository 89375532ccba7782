#include "profile/rocprof.h"

#include <fmt/format.h>

#include <algorithm>

#include "profile/csv.h"
#include "profile/units.h"

namespace kforge {
namespace {

std::int64_t integer_cell(const csv::Table& table, const std::vector<std::string>& row, const std::string& name) {
  return static_cast<std::int64_t>(csv::parse_number(table.cell(row, name)).value_or(0));
}

// The first of several spellings a column has had across rocprofv3 versions.
std::int64_t integer_cell_any(const csv::Table& table, const std::vector<std::string>& row,
                              std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (table.column(name) >= 0) return integer_cell(table, row, name);
  return 0;
}

std::int64_t product_xyz(const csv::Table& table, const std::vector<std::string>& row, const std::string& prefix) {
  if (table.column(prefix) >= 0) return integer_cell(table, row, prefix);  // one column holding the product
  std::int64_t product = 1;
  bool any = false;
  for (const char* axis : {"_X", "_Y", "_Z"}) {
    if (table.column(prefix + axis) < 0) continue;
    product *= std::max<std::int64_t>(1, integer_cell(table, row, prefix + axis));
    any = true;
  }
  return any ? product : 0;
}

std::optional<int> optional_int_cell(const csv::Table& table, const std::vector<std::string>& row,
                                     const std::string& name) {
  const auto value = csv::parse_number(table.cell(row, name));
  return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

std::string dispatch_key(const csv::Table& table, const std::vector<std::string>& row) {
  const std::string& dispatch = table.cell(row, "Dispatch_Id");
  return dispatch.empty() ? table.cell(row, "Correlation_Id") : dispatch;
}

// A line of the terminal table: "│ 2.1.9 │ VALU Utilization │ 87.2 │ Pct │ ..." (or ASCII '|').
std::optional<std::vector<std::string>> parse_box_line(const std::string& line) {
  std::string normalized;
  const std::string bar = "\u2502";
  for (std::size_t i = 0; i < line.size();) {
    if (line.compare(i, bar.size(), bar) == 0) {
      normalized += '|';
      i += bar.size();
    } else {
      normalized += line[i++];
    }
  }
  if (std::count(normalized.begin(), normalized.end(), '|') < 3) return std::nullopt;
  std::vector<std::string> fields;
  std::size_t start = normalized.find('|') + 1;
  for (std::size_t end; (end = normalized.find('|', start)) != std::string::npos; start = end + 1) {
    std::string field = normalized.substr(start, end - start);
    const auto first = field.find_first_not_of(' ');
    const auto last = field.find_last_not_of(' ');
    fields.push_back(first == std::string::npos ? "" : field.substr(first, last - first + 1));
  }
  return fields;
}

std::optional<std::vector<std::string>> parse_analysis_line(const std::string& line) {
  if (line.find("\u2502") != std::string::npos || line.rfind('|', 0) == 0) return parse_box_line(line);
  return csv::parse_line(line);
}

int index_of(const std::vector<std::string>& header, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it != header.end()) return static_cast<int>(it - header.begin());
  }
  return -1;
}

struct AnalysisColumns {
  int metric = -1, value = -1, unit = -1, peak = -1, pct = -1;
};

std::optional<AnalysisColumns> analysis_header(const std::vector<std::string>& fields) {
  AnalysisColumns columns{index_of(fields, {"Metric"}), index_of(fields, {"Avg", "Value", "Mean"}),
                          index_of(fields, {"Unit"}), index_of(fields, {"Peak"}),
                          index_of(fields, {"Pct of Peak", "PoP", "Pct"})};
  if (columns.metric < 0 || columns.value < 0) return std::nullopt;
  return columns;
}

std::optional<double> number_at(const std::vector<std::string>& fields, int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= fields.size()) return std::nullopt;
  return csv::parse_number(fields[static_cast<std::size_t>(index)]);
}

const RocComputeMetric* find_metric(const std::map<std::string, RocComputeMetric>& metrics,
                                    std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (auto it = metrics.find(name); it != metrics.end()) return &it->second;
  return nullptr;
}

std::optional<double> pct_of_peak(const RocComputeMetric* metric) {
  if (!metric) return std::nullopt;
  if (metric->pct_of_peak) return metric->pct_of_peak;
  if (metric->unit == "%" || metric->unit == "Pct" || metric->unit == "pct") return metric->value;
  return std::nullopt;
}


std::vector<Limiter> amd_limiters(Bound bound, double memory_pct, double compute_pct,
                                  std::optional<double> occupancy_pct, std::optional<double> l2_hit) {
  std::vector<Limiter> limiters;
  switch (bound) {
    case Bound::Memory:
      limiters.push_back({fmt::format("HBM bandwidth at {:.0f}% of peak", memory_pct),
                          "move fewer bytes: reuse data through LDS or registers, narrower types, fused passes"});
      break;
    case Bound::Compute:
      limiters.push_back({fmt::format("VALU at {:.0f}% of peak", compute_pct),
                          "fewer instructions per result: FMA, packed math, MFMA for matrix products"});
      break;
    case Bound::Latency:
    case Bound::Unknown:
      limiters.push_back({fmt::format("neither memory ({:.0f}%) nor VALU ({:.0f}%) is near its peak", memory_pct,
                                      compute_pct),
                          "keep more wavefronts or more independent loads in flight; fewer barriers"});
      break;
  }
  if (occupancy_pct && *occupancy_pct < 50)
    limiters.push_back({fmt::format("wavefront occupancy {:.0f}% of peak", *occupancy_pct),
                        "fewer VGPRs or less LDS per work-group, or more work-groups"});
  if (l2_hit && *l2_hit < 50 && bound == Bound::Memory)
    limiters.push_back({fmt::format("L2 hit rate {:.0f}%", *l2_hit),
                        "tile so neighbouring work-groups reuse data while it is in L2"});
  return limiters;
}
}  // namespace

std::vector<RocDispatch> parse_rocprofv3_kernel_trace(const std::string& csv_text) {
  std::vector<RocDispatch> dispatches;
  const auto table = csv::find_table(csv_text, {"Kernel_Name", "Start_Timestamp", "End_Timestamp"});
  if (!table) return dispatches;
  for (const auto& row : table->rows) {
    RocDispatch dispatch;
    dispatch.kernel_name = table->cell(row, "Kernel_Name");
    dispatch.dispatch_id = dispatch_key(*table, row);
    dispatch.start_ns = integer_cell(*table, row, "Start_Timestamp");
    dispatch.end_ns = integer_cell(*table, row, "End_Timestamp");
    if (dispatch.end_ns < dispatch.start_ns) continue;  // a garbled row
    dispatch.workgroup_size = product_xyz(*table, row, "Workgroup_Size");
    dispatch.grid_size = product_xyz(*table, row, "Grid_Size");
    dispatch.lds_bytes = integer_cell_any(*table, row, {"Group_Segment_Size", "LDS_Block_Size"});
    dispatch.scratch_bytes = integer_cell_any(*table, row, {"Private_Segment_Size", "Scratch_Size"});
    dispatch.vgprs = optional_int_cell(*table, row, "VGPR_Count");
    dispatch.sgprs = optional_int_cell(*table, row, "SGPR_Count");
    dispatches.push_back(std::move(dispatch));
  }
  return dispatches;
}

std::vector<RocCounterDispatch> parse_rocprofv3_counters(const std::string& csv_text) {
  std::vector<RocCounterDispatch> dispatches;
  const auto table = csv::find_table(csv_text, {"Kernel_Name", "Counter_Name", "Counter_Value"});
  if (!table) return dispatches;
  for (const auto& row : table->rows) {
    const auto value = csv::parse_number(table->cell(row, "Counter_Value"));
    if (!value) continue;
    const std::string key = dispatch_key(*table, row);
    auto it = std::find_if(dispatches.begin(), dispatches.end(),
                           [&](const RocCounterDispatch& d) { return d.dispatch_id == key; });
    if (it == dispatches.end()) {
      dispatches.push_back({table->cell(row, "Kernel_Name"), key, {}});
      it = std::prev(dispatches.end());
    }
    // Counters sampled per shader engine or XCD arrive as several rows: they add up.
    it->counters[table->cell(row, "Counter_Name")] += *value;
  }
  return dispatches;
}

std::map<std::string, RocComputeMetric> parse_rocprof_compute_analysis(const std::string& text) {
  std::map<std::string, RocComputeMetric> metrics;
  std::optional<AnalysisColumns> columns;
  for (const std::string& line : csv::split_lines(text)) {
    const auto fields = parse_analysis_line(line);
    if (!fields) continue;
    if (auto header = analysis_header(*fields)) {
      columns = header;  // each table brings its own header
      continue;
    }
    if (!columns || static_cast<std::size_t>(columns->metric) >= fields->size()) continue;
    const auto value = number_at(*fields, columns->value);
    const std::string& name = (*fields)[static_cast<std::size_t>(columns->metric)];
    if (!value || name.empty() || metrics.count(name)) continue;
    RocComputeMetric metric;
    metric.unit = columns->unit >= 0 && static_cast<std::size_t>(columns->unit) < fields->size()
                      ? (*fields)[static_cast<std::size_t>(columns->unit)]
                      : "";
    const Quantity quantity = normalize_unit(*value, metric.unit);
    metric.value = quantity.value;
    if (auto peak = number_at(*fields, columns->peak)) metric.peak = normalize_unit(*peak, metric.unit).value;
    metric.unit = quantity.unit;
    metric.pct_of_peak = number_at(*fields, columns->pct);
    metrics.emplace(name, metric);
  }
  return metrics;
}

std::optional<RocDispatch> find_dispatch(const std::vector<RocDispatch>& dispatches, const std::string& kernel) {
  for (auto it = dispatches.rbegin(); it != dispatches.rend(); ++it) {
    const std::string& name = it->kernel_name;
    if (name.rfind(kernel, 0) == 0 &&
        (name.size() == kernel.size() || name[kernel.size()] == '(' || name[kernel.size()] == '<' ||
         name[kernel.size()] == '.'))
      return *it;
  }
  return std::nullopt;
}

KernelProfile profile_from_rocprofv3(const RocDispatch& dispatch, const RocCounterDispatch* counters,
                                     const TaskWork& work, const DevicePeaks& peaks) {
  KernelProfile profile;
  profile.source = ProfileSource::Rocprofv3;
  profile.kernel_name = dispatch.kernel_name;
  profile.duration_ms = dispatch.duration_ms();
  double bytes = work.bytes;
  profile.source_note = "kernel trace timing; bytes from the task's declaration";
  if (counters) {
    for (const auto& [name, value] : counters->counters) profile.metrics[name] = value;
    // FETCH_SIZE and WRITE_SIZE are rocprof's derived counters in kilobytes.
    const auto fetch = counters->counters.find("FETCH_SIZE"), write = counters->counters.find("WRITE_SIZE");
    if (fetch != counters->counters.end() || write != counters->counters.end()) {
      bytes = 1024 * ((fetch != counters->counters.end() ? fetch->second : 0) +
                      (write != counters->counters.end() ? write->second : 0));
      profile.source_note = "kernel trace timing; bytes from FETCH_SIZE + WRITE_SIZE counters";
    }
  }
  const RooflinePoint point = roofline_position(bytes, work.flops, profile.duration_ms / 1000, peaks);
  fill_from_roofline(profile, point, peaks);
  profile.bound = point.bound;
  if (dispatch.vgprs) profile.registers_per_thread = *dispatch.vgprs;
  profile.metrics["lds_bytes"] = static_cast<double>(dispatch.lds_bytes);
  profile.metrics["scratch_bytes"] = static_cast<double>(dispatch.scratch_bytes);
  profile.limiters = amd_limiters(profile.bound, profile.bandwidth_pct, profile.compute_pct, std::nullopt, std::nullopt);
  if (dispatch.scratch_bytes > 0)
    profile.limiters.push_back({fmt::format("{} bytes of scratch per work-item: registers spill to memory",
                                            dispatch.scratch_bytes),
                                "reduce live values per work-item or the work-group size bound"});
  return profile;
}

KernelProfile profile_from_rocprof_compute(const std::map<std::string, RocComputeMetric>& metrics,
                                           std::optional<double> duration_ms, const TaskWork& work,
                                           const DevicePeaks& peaks) {
  KernelProfile profile;
  profile.source = ProfileSource::RocprofCompute;
  profile.duration_ms = duration_ms.value_or(0);
  for (const auto& [name, metric] : metrics) profile.metrics[name] = metric.value;
  const RocComputeMetric* hbm = find_metric(metrics, {"HBM Bandwidth", "HBM BW"});
  const RocComputeMetric* valu = find_metric(metrics, {"VALU Utilization"});
  const RocComputeMetric* flops = find_metric(metrics, {"VALU FLOPs"});
  const RocComputeMetric* occupancy = find_metric(metrics, {"Wavefront Occupancy"});
  const auto l2_hit = pct_of_peak(find_metric(metrics, {"L2 Cache Hit Rate", "L2 Cache Hit"}));

  RooflinePoint point = roofline_position(work.bytes, work.flops, profile.duration_ms / 1000, peaks);
  if (hbm && hbm->unit == "byte/second") point.achieved_gbps = hbm->value / 1e9;
  // rocprof-compute reports VALU FLOPs as a rate in its "Gflop" unit.
  if (flops && (flops->unit == "Gflop" || flops->unit == "GFLOPs")) point.achieved_gflops = flops->value;
  fill_from_roofline(profile, point, peaks);
  // The profiler's own percent-of-peak beats ours: its peaks are the hardware's.
  const double memory_pct = pct_of_peak(hbm).value_or(profile.bandwidth_pct);
  const double compute_pct =
      pct_of_peak(flops).value_or(pct_of_peak(valu).value_or(profile.compute_pct));
  profile.memory_throughput_pct = memory_pct;
  profile.dram_throughput_pct = pct_of_peak(hbm);
  profile.sm_throughput_pct = compute_pct;
  profile.achieved_occupancy_pct = pct_of_peak(occupancy);
  profile.l2_hit_rate_pct = l2_hit;
  profile.bound = classify_fractions(memory_pct / 100, compute_pct / 100, kBusyPct / 100);
  profile.source_note = hbm ? "HBM bandwidth and VALU figures from rocprof-compute" : "rocprof-compute, no HBM figure";
  profile.limiters = amd_limiters(profile.bound, memory_pct, compute_pct, profile.achieved_occupancy_pct, l2_hit);
  return profile;
}

std::vector<std::string> rocprofv3_command(const std::filesystem::path& rocprofv3, const std::filesystem::path& out_dir,
                                           const std::vector<std::string>& counters,
                                           const std::vector<std::string>& target) {
  std::vector<std::string> command = {rocprofv3.string(), "--kernel-trace", "--output-format", "csv", "-d",
                                      out_dir.string()};
  if (!counters.empty()) {
    command.push_back("--pmc");
    command.insert(command.end(), counters.begin(), counters.end());
  }
  command.push_back("--");
  command.insert(command.end(), target.begin(), target.end());
  return command;
}

std::vector<std::filesystem::path> find_outputs(const std::filesystem::path& dir, const std::string& suffix) {
  std::vector<std::filesystem::path> found;
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (it->is_regular_file() && name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      found.push_back(it->path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace kforge
