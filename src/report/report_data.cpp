#include "report/report_data.h"

#include "report/deliverable.h"
#include "report/line_diff.h"

#include <fmt/format.h>

#include <set>

namespace kforge {
namespace {

// The per-size table of the final verification: every figure a size has, as a column.
std::vector<SizeRow> size_rows(const CandidateMetrics& metrics) {
  std::vector<SizeRow> rows;
  for (const auto& size : metrics.sizes) {
    SizeRow row{size.name, {}};
    const nlohmann::json values = to_json(size);
    for (auto it = values.begin(); it != values.end(); ++it)
      if (it.key() != "name" && it->is_primitive()) row.values[it.key()] = *it;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

std::string source_extension(Language language) { return language_facts(language).source_extension; }

std::optional<double> speedup_of(const CandidateRecord& candidate,
                                 std::optional<double> baseline_ms) {
  if (auto s = candidate.speedup()) return s;
  auto ms = candidate.median_ms();
  if (ms && baseline_ms && *ms > 0) return *baseline_ms / *ms;
  return std::nullopt;
}

ReportData collect_report_data(const RunStore& store, const ReportInputs& inputs) {
  ReportData data;
  data.settings = store.read_settings();
  data.task_name = inputs.task_name.empty() ? data.settings.task_name : inputs.task_name;
  data.language = to_string(inputs.language);
  data.extension = source_extension(inputs.language);
  data.device_name = inputs.device_name;
  data.baseline = store.baseline();
  if (data.baseline) data.baseline_ms = data.baseline->median_ms;

  data.best = store.best_candidate();
  if (data.best) {
    data.best_speedup = speedup_of(*data.best, data.baseline_ms);
    data.best_speedup_ci_low = data.best->metrics.speedup_ci_low;
    data.best_speedup_ci_high = data.best->metrics.speedup_ci_high;
    data.lineage = store.lineage(data.best->id);
    data.best_sizes = size_rows(data.best->metrics);
    std::set<std::string> seen;
    for (const auto& row : data.best_sizes)
      for (const auto& [column, value] : row.values)
        if (seen.insert(column).second) data.size_columns.push_back(column);
    const std::string original_label =
        "a/" + (inputs.original_file_name.empty() ? "original" + data.extension
                                                  : inputs.original_file_name);
    DeliverableInfo info{data.task_name, "", inputs.task_compile_options};
    if (data.best_speedup)
      info.headline = fmt::format("{:.2f}x{}{}", *data.best_speedup,
                                  data.best_speedup_ci_low && data.best_speedup_ci_high
                                      ? fmt::format(" [{:.2f}, {:.2f}]", *data.best_speedup_ci_low, *data.best_speedup_ci_high)
                                      : std::string(),
                                  data.device_name.empty() ? "" : " on " + data.device_name);
    data.deliverable = deliverable_source(*data.best, inputs.language, info);
    data.build_options = build_options(*data.best, inputs.task_compile_options);
    // The diff is what the user gets: the baked-in values and options are part of it.
    data.diff = unified_diff(inputs.original_source, data.deliverable, original_label, "b/best" + data.extension);
    const auto stats = diff_stats(inputs.original_source, data.best->source);
    data.lines_added = stats.added;
    data.lines_removed = stats.removed;
  }
  data.generations = store.list_generations();
  data.candidates = store.list_candidates();
  for (auto& candidate : data.candidates) {
    candidate.source.clear();
    candidate.compile_log.clear();
  }
  CandidateFilter top;
  top.statuses = {CandidateStatus::Correct};
  top.fastest_first = true;
  top.limit = 10;
  data.top = store.list_candidates(top);
  data.status_counts = store.status_counts();
  data.llm = store.llm_totals();
  return data;
}

}  // namespace kforge
