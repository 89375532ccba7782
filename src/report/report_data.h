// Everything the report shows, read from the store once and shared by the Markdown,
// HTML and JSON writers so that they cannot disagree.
#pragma once

#include "report/report.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kforge {

// One row of a per-size results table: size name -> column -> printable value.
struct SizeRow {
  std::string name;
  std::map<std::string, nlohmann::json> values;
};

struct ReportData {
  std::string task_name;
  std::string language;  // "cuda", ...
  std::string extension;
  RunSettings settings;
  std::optional<CandidateMetrics> baseline;  // absent when not recorded
  std::optional<double> baseline_ms;
  std::optional<CandidateRecord> best;
  std::optional<double> best_speedup;    // metrics.speedup, else baseline_ms / best median
  std::optional<double> best_speedup_ci_low, best_speedup_ci_high;  // its 95% CI, where measured
  std::vector<CandidateRecord> lineage;  // root .. best
  std::vector<SizeRow> best_sizes;
  std::vector<std::string> size_columns;  // union of keys over best_sizes, name excluded
  std::vector<GenerationRecord> generations;
  std::vector<CandidateRecord> candidates;  // all, by id (sources dropped to save memory)
  std::vector<CandidateRecord> top;         // up to 10 fastest correct
  std::map<std::string, std::int64_t> status_counts;
  LlmTotals llm;
  std::string deliverable;                 // best.<ext>: values baked in, options stated (deliverable.h)
  std::vector<std::string> build_options;  // the task's and the best's own compile options
  std::string diff;  // unified diff original -> deliverable, empty without a best
  std::size_t lines_added = 0, lines_removed = 0;
  std::string device_name;
};

ReportData collect_report_data(const RunStore& store, const ReportInputs& inputs);

// Speedup of a candidate: its metrics.speedup, else baseline_ms / median_ms.
std::optional<double> speedup_of(const CandidateRecord& candidate, std::optional<double> baseline_ms);

}  // namespace kforge
