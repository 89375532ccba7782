#include "report/report_data.h"

#include "util/metric_keys.h"

#include "report/line_diff.h"

#include <set>

namespace kforge {
namespace {

std::optional<double> number_at(const nlohmann::json& object, const char* key) {
  if (object.is_object())
    if (auto it = object.find(key); it != object.end() && it->is_number()) return it->get<double>();
  return std::nullopt;
}

// metrics.sizes may be an array of {"name": ..., ...} or an object keyed by size name.
std::vector<SizeRow> size_rows(const nlohmann::json& metrics) {
  std::vector<SizeRow> rows;
  if (!metrics.is_object() || !metrics.contains("sizes")) return rows;
  const auto& sizes = metrics["sizes"];
  auto add = [&](std::string name, const nlohmann::json& values) {
    SizeRow row{std::move(name), {}};
    if (values.is_object())
      for (auto it = values.begin(); it != values.end(); ++it)
        if (it.key() != "name" && (it->is_primitive())) row.values[it.key()] = *it;
    rows.push_back(std::move(row));
  };
  if (sizes.is_array()) {
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const auto& entry = sizes[i];
      std::string name = entry.is_object() && entry.contains("name") && entry["name"].is_string()
                             ? entry["name"].get<std::string>()
                             : "size" + std::to_string(i);
      add(name, entry);
    }
  } else if (sizes.is_object()) {
    for (auto it = sizes.begin(); it != sizes.end(); ++it) add(it.key(), *it);
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
  if (auto baseline = store.baseline()) data.baseline = *baseline;
  data.baseline_ms = number_at(data.baseline, "median_ms");

  data.best = store.best_candidate();
  if (data.best) {
    data.best_speedup = speedup_of(*data.best, data.baseline_ms);
    data.best_speedup_ci_low = number_at(data.best->metrics, metric_keys::kSpeedupCiLow);
    data.best_speedup_ci_high = number_at(data.best->metrics, metric_keys::kSpeedupCiHigh);
    data.lineage = store.lineage(data.best->id);
    data.best_sizes = size_rows(data.best->metrics);
    std::set<std::string> seen;
    for (const auto& row : data.best_sizes)
      for (const auto& [column, value] : row.values)
        if (seen.insert(column).second) data.size_columns.push_back(column);
    const std::string original_label =
        "a/" + (inputs.original_file_name.empty() ? "original" + data.extension
                                                  : inputs.original_file_name);
    data.diff = unified_diff(inputs.original_source, data.best->source, original_label,
                             "b/best" + data.extension);
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
