#include "profile/ncu.h"

#include <fmt/format.h>

#include <algorithm>

#include "profile/csv.h"
#include "profile/units.h"

namespace kforge {
namespace {

// The same quantity under its details-page name and its raw-page counter name.
struct Alias {
  const char* details;
  const char* raw;
};
constexpr Alias kDuration{"Duration", "gpu__time_duration.sum"};
constexpr Alias kSmPct{"Compute (SM) Throughput", "sm__throughput.avg.pct_of_peak_sustained_elapsed"};
constexpr Alias kMemoryPct{"Memory Throughput", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"};
constexpr Alias kDramPct{"DRAM Throughput", "dram__throughput.avg.pct_of_peak_sustained_elapsed"};
constexpr Alias kL1Pct{"L1/TEX Cache Throughput", "l1tex__throughput.avg.pct_of_peak_sustained_active"};
constexpr Alias kL2Pct{"L2 Cache Throughput", "lts__throughput.avg.pct_of_peak_sustained_elapsed"};
constexpr Alias kAchievedOccupancy{"Achieved Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active"};
constexpr Alias kTheoreticalOccupancy{"Theoretical Occupancy", "sm__maximum_warps_per_active_cycle_pct"};
constexpr Alias kRegisters{"Registers Per Thread", "launch__registers_per_thread"};
constexpr Alias kL1Hit{"L1/TEX Hit Rate", "l1tex__t_sector_hit_rate.pct"};
constexpr Alias kL2Hit{"L2 Hit Rate", "lts__t_sector_hit_rate.pct"};
constexpr Alias kIpc{"Executed Ipc Active", "sm__inst_executed.avg.per_cycle_active"};
constexpr Alias kWaves{"Waves Per SM", "launch__waves_per_multiprocessor"};
constexpr Alias kLimitRegisters{"Block Limit Registers", "launch__occupancy_limit_registers"};
constexpr Alias kLimitShared{"Block Limit Shared Mem", "launch__occupancy_limit_shared_mem"};
constexpr Alias kLimitWarps{"Block Limit Warps", "launch__occupancy_limit_warps"};
constexpr Alias kLimitBlocks{"Block Limit SM", "launch__occupancy_limit_blocks"};

std::optional<double> lookup(const NcuKernel& kernel, const Alias& alias, const char* unit = nullptr) {
  for (const char* name : {alias.details, alias.raw}) {
    auto it = kernel.metrics.find(name);
    if (it != kernel.metrics.end() && (!unit || it->second.base_unit == unit)) return it->second.value;
    if (unit) {
      it = kernel.metrics.find(fmt::format("{} [{}]", name, unit));
      if (it != kernel.metrics.end()) return it->second.value;
    }
  }
  return std::nullopt;
}

// A second metric of the same name (ncu's "Memory Throughput" is a % in Speed Of Light and
// a byte/second in Memory Workload Analysis) is kept under "name [unit]".
void add_metric(NcuKernel& kernel, const std::string& name, NcuMetric metric) {
  if (kernel.metrics.count(name)) {
    kernel.metrics.emplace(fmt::format("{} [{}]", name, metric.base_unit), std::move(metric));
    return;
  }
  kernel.metrics.emplace(name, std::move(metric));
}

NcuKernel& kernel_for_row(NcuParse& parse, const csv::Table& table, const std::vector<std::string>& row) {
  const std::string& id = table.cell(row, "ID");
  for (auto& kernel : parse.kernels)
    if (kernel.id == id) return kernel;
  NcuKernel kernel;
  kernel.id = id;
  kernel.name = table.cell(row, "Kernel Name");
  kernel.block_size = table.cell(row, "Block Size");
  kernel.grid_size = table.cell(row, "Grid Size");
  kernel.device = table.cell(row, "Device");
  kernel.compute_capability = table.cell(row, "CC");
  parse.kernels.push_back(std::move(kernel));
  return parse.kernels.back();
}

// A rule row: no metric, the "Rule ..." columns filled instead.
bool add_rule(NcuKernel& kernel, const csv::Table& table, const std::vector<std::string>& row) {
  const std::string& name = table.cell(row, "Rule Name");
  if (name.empty() || !table.cell(row, "Metric Name").empty()) return false;
  NcuRule rule;
  rule.section = table.cell(row, "Section Name");
  rule.name = name;
  rule.type = table.cell(row, "Rule Type");
  rule.description = table.cell(row, "Rule Description");
  rule.speedup_type = table.cell(row, "Estimated Speedup Type");
  rule.estimated_speedup = csv::parse_number(table.cell(row, "Estimated Speedup"));
  kernel.rules.push_back(std::move(rule));
  return true;
}

void parse_details(const csv::Table& table, NcuParse& parse) {
  for (const auto& row : table.rows) {
    NcuKernel& kernel = kernel_for_row(parse, table, row);
    if (add_rule(kernel, table, row)) continue;
    const std::string& name = table.cell(row, "Metric Name");
    const auto value = csv::parse_number(table.cell(row, "Metric Value"));
    if (name.empty() || !value) {
      ++parse.non_numeric_values;
      continue;
    }
    const std::string& unit = table.cell(row, "Metric Unit");
    const Quantity quantity = normalize_unit(*value, unit);
    add_metric(kernel, name, {table.cell(row, "Section Name"), unit, quantity.value, quantity.unit});
  }
}

// Raw page: one column per counter, a units row right under the header (its ID cell is empty).
void parse_raw(const csv::Table& table, NcuParse& parse) {
  const int first_metric = table.column("CC") + 1;
  std::vector<std::string> units(table.header.size());
  for (const auto& row : table.rows) {
    if (table.cell(row, "ID").empty()) {
      units = row;
      continue;
    }
    NcuKernel& kernel = kernel_for_row(parse, table, row);
    for (std::size_t i = static_cast<std::size_t>(std::max(first_metric, 0)); i < row.size(); ++i) {
      const auto value = csv::parse_number(row[i]);
      if (!value) {
        ++parse.non_numeric_values;
        continue;
      }
      const Quantity quantity = normalize_unit(*value, units[i]);
      add_metric(kernel, table.header[i], {"", units[i], quantity.value, quantity.unit});
    }
  }
}

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

std::string first_line_with(const std::string& text, const char* marker) {
  for (const auto& line : csv::split_lines(text))
    if (contains(line, marker)) return line;
  return "";
}

// The per-SM block limit that is smallest decides the theoretical occupancy.
std::optional<Limiter> occupancy_limiter(const NcuKernel& kernel) {
  const auto theoretical = lookup(kernel, kTheoreticalOccupancy);
  if (!theoretical || *theoretical >= 50) return std::nullopt;
  struct Candidate {
    std::optional<double> blocks;
    const char* what;
    const char* suggestion;
  };
  const Candidate candidates[] = {
      {lookup(kernel, kLimitRegisters), "registers per thread",
       "cap registers with __launch_bounds__(threads, minBlocks) or keep less state per thread"},
      {lookup(kernel, kLimitShared), "shared memory per block",
       "use smaller tiles or fewer shared buffers so more blocks fit on an SM"},
      {lookup(kernel, kLimitWarps), "block size (warps per block)",
       "pick a block size that divides the SM's warp slots evenly"},
      {lookup(kernel, kLimitBlocks), "the blocks-per-SM limit (blocks are too small)",
       "use larger blocks: more threads per block"},
  };
  const Candidate* tightest = nullptr;
  for (const auto& candidate : candidates)
    if (candidate.blocks && (!tightest || *candidate.blocks < *tightest->blocks)) tightest = &candidate;
  if (!tightest) return std::nullopt;
  std::string registers;
  if (tightest == &candidates[0])
    if (auto count = lookup(kernel, kRegisters)) registers = fmt::format(" ({:.0f} registers/thread)", *count);
  return Limiter{fmt::format("theoretical occupancy {:.0f}% is limited by {}{}: {:.0f} block(s) per SM",
                             *theoretical, tightest->what, registers, *tightest->blocks),
                 tightest->suggestion};
}

std::optional<Limiter> achieved_occupancy_limiter(const NcuKernel& kernel) {
  const auto achieved = lookup(kernel, kAchievedOccupancy);
  const auto theoretical = lookup(kernel, kTheoreticalOccupancy);
  if (!achieved || !theoretical || *achieved >= 0.8 * *theoretical) return std::nullopt;
  return Limiter{fmt::format("achieved occupancy {:.0f}% is well under the theoretical {:.0f}%", *achieved,
                             *theoretical),
                 "warps finish unevenly or the grid is too small: balance work across blocks, launch more blocks"};
}

std::optional<Limiter> waves_limiter(const NcuKernel& kernel) {
  const auto waves = lookup(kernel, kWaves);
  if (!waves || *waves >= 1) return std::nullopt;
  return Limiter{fmt::format("the grid fills only {:.2f} of one wave: some SMs get no blocks", *waves),
                 "launch more blocks: less work per block, or split the reduction dimension"};
}

std::optional<Limiter> l2_limiter(const NcuKernel& kernel, Bound bound) {
  const auto l2 = lookup(kernel, kL2Hit);
  if (bound != Bound::Memory || !l2 || *l2 >= 50) return std::nullopt;
  return Limiter{fmt::format("L2 hit rate is {:.0f}%: most loads go to DRAM", *l2),
                 "improve locality: tile so that neighbouring blocks reuse the same data while it is in L2"};
}

// The on-chip memory unit nearest its peak when DRAM is not the busy one.
std::string busiest_cache(const NcuKernel& kernel) {
  const auto l1 = lookup(kernel, kL1Pct, "%"), l2 = lookup(kernel, kL2Pct, "%");
  if (!l1 && !l2) return "L1/L2/shared";
  if (l1.value_or(-1) >= l2.value_or(-1)) return fmt::format("L1/TEX (at {:.0f}%)", *l1);
  return fmt::format("L2 (at {:.0f}%)", *l2);
}

Limiter bound_limiter(const NcuKernel& kernel, Bound bound) {
  const double sm = lookup(kernel, kSmPct, "%").value_or(0);
  const double memory = lookup(kernel, kMemoryPct, "%").value_or(0);
  const auto dram = lookup(kernel, kDramPct, "%");
  switch (bound) {
    case Bound::Memory:
      if (dram && *dram >= kBusyPct)
        return {fmt::format("DRAM throughput at {:.0f}% of peak (SM {:.0f}%)", *dram, sm),
                "move fewer bytes: reuse data through shared memory or registers, use narrower types, fuse passes"};
      return {fmt::format("memory pipelines at {:.0f}% of peak but DRAM only at {:.0f}%: {} traffic is the "
                          "bottleneck (SM {:.0f}%)",
                          memory, dram.value_or(0), busiest_cache(kernel), sm),
              "load each value once per block: stage reused tiles in shared memory and keep per-thread tiles in "
              "registers; remove uncoalesced accesses and shared-memory bank conflicts; use wide loads"};
    case Bound::Compute: {
      const auto ipc = lookup(kernel, kIpc);
      return {fmt::format("SM throughput at {:.0f}% of peak{}", sm,
                          ipc ? fmt::format(", {:.2f} instructions/cycle", *ipc) : std::string()),
              "issue fewer instructions per result: fused multiply-add, hoisted index arithmetic, vector types; "
              "tensor cores for matrix products"};
    }
    case Bound::Latency:
    case Bound::Unknown: break;
  }
  return {fmt::format("neither memory ({:.0f}%) nor compute ({:.0f}%) is near its peak: warps wait on latency",
                      memory, sm),
          "keep more independent work in flight: more warps per SM, several loads per thread before their use, "
          "fewer barriers"};
}

// First sentence of ncu's rule text as the finding, the rest as what to try.
Limiter rule_limiter(const NcuRule& rule) {
  std::string finding = rule.description, suggestion;
  if (const auto end = finding.find(". "); end != std::string::npos) {
    suggestion = finding.substr(end + 2);
    finding.resize(end + 1);
  }
  if (suggestion.empty()) suggestion = "see ncu's " + rule.section + " section";
  const std::string scope = rule.speedup_type.empty() ? "" : " " + rule.speedup_type;
  return {fmt::format("ncu {} (estimated{} speedup {:.0f}%): {}", rule.name, scope, *rule.estimated_speedup,
                      finding),
          suggestion};
}

// ncu's rules that estimate a speedup, largest first, at most `count`.
std::vector<Limiter> rule_limiters(const NcuKernel& kernel, std::size_t count) {
  std::vector<const NcuRule*> rules;
  for (const auto& rule : kernel.rules)
    if (rule.estimated_speedup && *rule.estimated_speedup > 0) rules.push_back(&rule);
  std::stable_sort(rules.begin(), rules.end(), [](const NcuRule* a, const NcuRule* b) {
    return *a->estimated_speedup > *b->estimated_speedup;
  });
  std::vector<Limiter> limiters;
  for (std::size_t i = 0; i < rules.size() && i < count; ++i) limiters.push_back(rule_limiter(*rules[i]));
  return limiters;
}
}  // namespace

std::optional<double> NcuKernel::get(const std::string& metric) const {
  const auto it = metrics.find(metric);
  return it == metrics.end() ? std::nullopt : std::optional<double>(it->second.value);
}

NcuParse parse_ncu_csv(const std::string& text) {
  NcuParse parse;
  // Real ncu ends metric rows after "Metric Value" (and a trailing comma) while rule rows fill
  // the "Rule ..." columns after it: rows shorter than the header are padded.
  if (auto details = csv::find_table(text, {"ID", "Kernel Name", "Metric Name", "Metric Value"},
                                     csv::ShortRows::PadIfRequiredPresent)) {
    parse.skipped_lines = details->skipped_lines;
    parse_details(*details, parse);
  } else if (auto raw = csv::find_table(text, {"ID", "Kernel Name", "CC"})) {
    parse.skipped_lines = raw->skipped_lines;
    parse_raw(*raw, parse);
  }
  return parse;
}

const std::vector<std::string>& ncu_default_sections() {
  static const std::vector<std::string> sections = {"SpeedOfLight", "MemoryWorkloadAnalysis", "Occupancy",
                                                    "LaunchStats", "ComputeWorkloadAnalysis"};
  return sections;
}

const std::vector<std::string>& ncu_default_metrics() {
  static const std::vector<std::string> metrics = {
      "dram__bytes_read.sum", "dram__bytes_write.sum", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
      "sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "sm__sass_thread_inst_executed_op_fmul_pred_on.sum"};
  return metrics;
}

std::string ncu_kernel_filter(const std::string& kernel) { return "regex:^" + kernel + "([^A-Za-z0-9_]|$)"; }

std::vector<std::string> ncu_profile_command(const NcuInvocation& invocation) {
  std::vector<std::string> command = {invocation.ncu.string(), "--kernel-name-base", "function", "--kernel-name",
                                      ncu_kernel_filter(invocation.kernel), "--launch-skip",
                                      std::to_string(invocation.launch_skip), "--launch-count",
                                      std::to_string(invocation.launch_count)};
  for (const auto& section : invocation.sections) {
    command.push_back("--section");
    command.push_back(section);
  }
  if (!invocation.metrics.empty()) {
    std::string list;
    for (const auto& metric : invocation.metrics) list += (list.empty() ? "" : ",") + metric;
    command.push_back("--metrics");
    command.push_back(list);
  }
  command.insert(command.end(), {"-f", "-o", invocation.report.string()});
  command.insert(command.end(), invocation.target.begin(), invocation.target.end());
  return command;
}

std::vector<std::string> ncu_import_command(const std::filesystem::path& ncu, const std::filesystem::path& report_file) {
  return {ncu.string(), "--import", report_file.string(), "--csv", "--page", "details"};
}

NcuFailure diagnose_ncu_failure(int exit_code, const std::string& output) {
  if (contains(output, "ERR_NVGPUCTRPERM"))
    return {"GPU performance counters are not permitted for this user (ERR_NVGPUCTRPERM); run as root or load "
            "the driver with NVreg_RestrictProfilingToAdminUsers=0",
            true};
  if (contains(output, "LibraryNotLoaded") || contains(output, "Failed to load"))
    return {"ncu could not load its libraries: " + first_line_with(output, "==ERROR=="), false};
  if (contains(output, "No kernels were profiled"))
    return {"ncu profiled no kernel: the name filter matched no launch", false};
  if (const std::string error = first_line_with(output, "==ERROR=="); !error.empty()) return {error, false};
  if (exit_code != 0) return {fmt::format("ncu exited with status {}", exit_code), false};
  return {};
}

Bound classify_ncu(const NcuKernel& kernel) {
  const auto sm = lookup(kernel, kSmPct, "%");
  const auto memory = lookup(kernel, kMemoryPct, "%");
  if (!sm && !memory) return Bound::Unknown;
  const double sm_pct = sm.value_or(0), memory_pct = memory.value_or(0);
  if (sm_pct < kBusyPct && memory_pct < kBusyPct) return Bound::Latency;
  return memory_pct >= sm_pct ? Bound::Memory : Bound::Compute;
}

std::vector<Limiter> ncu_limiters(const NcuKernel& kernel, Bound bound) {
  std::vector<Limiter> limiters;
  if (bound != Bound::Unknown) limiters.push_back(bound_limiter(kernel, bound));
  for (auto limiter : {occupancy_limiter(kernel), achieved_occupancy_limiter(kernel), waves_limiter(kernel),
                       l2_limiter(kernel, bound)})
    if (limiter) limiters.push_back(std::move(*limiter));
  for (auto& limiter : rule_limiters(kernel, kMaxRuleLimiters)) limiters.push_back(std::move(limiter));
  return limiters;
}

KernelProfile profile_from_ncu(const NcuKernel& kernel, const TaskWork& work, const DevicePeaks& peaks) {
  KernelProfile profile;
  profile.source = ProfileSource::Ncu;
  profile.kernel_name = kernel.name;
  profile.bound = classify_ncu(kernel);
  const double seconds = lookup(kernel, kDuration, "second").value_or(0);
  profile.duration_ms = seconds * 1000;
  // Measured DRAM bytes and FP32 instruction counts where ncu collected them; the task's
  // declared bytes and flops otherwise.
  const auto read = kernel.get("dram__bytes_read.sum"), written = kernel.get("dram__bytes_write.sum");
  const double bytes = read || written ? read.value_or(0) + written.value_or(0) : work.bytes;
  std::optional<double> flops = work.flops;
  const auto ffma = kernel.get("sm__sass_thread_inst_executed_op_ffma_pred_on.sum");
  if (ffma)
    flops = 2 * *ffma + kernel.get("sm__sass_thread_inst_executed_op_fadd_pred_on.sum").value_or(0) +
            kernel.get("sm__sass_thread_inst_executed_op_fmul_pred_on.sum").value_or(0);
  const RooflinePoint point = roofline_position(bytes, flops, seconds, peaks);
  fill_from_roofline(profile, point, peaks);
  profile.sm_throughput_pct = lookup(kernel, kSmPct, "%");
  profile.memory_throughput_pct = lookup(kernel, kMemoryPct, "%");
  profile.dram_throughput_pct = lookup(kernel, kDramPct, "%");
  profile.achieved_occupancy_pct = lookup(kernel, kAchievedOccupancy);
  profile.theoretical_occupancy_pct = lookup(kernel, kTheoreticalOccupancy);
  profile.l1_hit_rate_pct = lookup(kernel, kL1Hit);
  profile.l2_hit_rate_pct = lookup(kernel, kL2Hit);
  if (auto registers = lookup(kernel, kRegisters)) profile.registers_per_thread = static_cast<int>(*registers);
  profile.limiters = ncu_limiters(kernel, profile.bound);
  for (const auto& [name, metric] : kernel.metrics) profile.metrics[name] = metric.value;
  profile.source_note = read || written ? "bytes from DRAM counters" : "bytes from the task's declaration";
  return profile;
}

}  // namespace kforge
