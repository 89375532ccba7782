#include "report/markdown_report.h"

#include "report/report_sections.h"
#include "report/text_format.h"

#include <fmt/format.h>

namespace kforge {

using namespace report_text;

std::string render_markdown(const ReportData& d) {
  std::string md = "# kforge report: " + d.task_name + "\n\n";
  md += headline(d) + "\n\n";
  md += "| | |\n|---|---|\n";
  md += "| Task | " + markdown_cell(d.task_name) + " (" + d.language + ") |\n";
  if (!d.device_name.empty()) md += "| Device | " + markdown_cell(d.device_name) + " |\n";
  md += "| Run status | " + markdown_cell(d.settings.status) + " |\n";
  md += "| Started | " + markdown_cell(d.settings.started_at) + " |\n";
  md += "| Baseline median | " + duration_ms(d.baseline_ms) + " |\n";
  if (d.best) {
    md += "| Best median | " + duration_ms(d.best->median_ms()) + " (candidate #" +
          std::to_string(d.best->id) + ", generation " + std::to_string(d.best->generation) + ") |\n";
    md += "| Best speedup | " + best_speedup_text(d) + " |\n";
    md += "| Best strategy | " + markdown_cell(d.best->strategy.empty() ? "-" : d.best->strategy) + " |\n";
    md += fmt::format("| Changed lines | +{} -{} |\n", d.lines_added, d.lines_removed);
  }
  md += fmt::format("| Candidates | {} |\n", d.candidates.size());
  if (d.llm.exchanges > 0)
    md += fmt::format("| LLM calls | {} ({} in / {} out tokens, ${:.2f}) |\n", d.llm.exchanges,
                      d.llm.input_tokens, d.llm.output_tokens, d.llm.cost_usd);
  md += "\n";

  if (d.best) {
    md += "## How the best kernel was found\n\n" + operator_chain(d) + "\n\n";
    if (!d.best->rationale.empty()) md += "> " + markdown_cell(d.best->rationale) + "\n\n";
    md += "Source: `best" + d.extension + "`, diff against the original: `best.diff`.\n\n";
  }

  if (!d.best_sizes.empty()) {
    md += "## Per-size results of the best\n\n| size |";
    for (const auto& column : d.size_columns) md += " " + markdown_cell(column) + " |";
    md += "\n|---|";
    for (std::size_t i = 0; i < d.size_columns.size(); ++i) md += "---|";
    md += "\n";
    for (const auto& row : d.best_sizes) {
      md += "| " + markdown_cell(row.name) + " |";
      for (const auto& column : d.size_columns) {
        auto it = row.values.find(column);
        md += " " + (it == row.values.end() ? "-" : markdown_cell(json_cell(it->second))) + " |";
      }
      md += "\n";
    }
    md += "\n";
  }

  md += "## Generations\n\n| generation | best median | best candidate | evaluated | correct | wall time |\n"
        "|---|---|---|---|---|---|\n";
  for (const auto& g : d.generations)
    md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", g.generation, duration_ms(g.best_median_ms),
                      g.best_candidate_id ? "#" + std::to_string(*g.best_candidate_id) : "-",
                      g.evaluated, g.correct,
                      g.finished_at.empty() ? "unfinished" : number(g.wall_s) + " s");
  md += "\n## Candidate statuses\n\n| status | count |\n|---|---|\n";
  for (const auto& [status, count] : d.status_counts) md += fmt::format("| {} | {} |\n", status, count);

  md += "\n## Top candidates\n\n| rank | id | generation | operator | median | speedup | strategy |\n"
        "|---|---|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < d.top.size(); ++i) {
    const auto& c = d.top[i];
    md += fmt::format("| {} | #{} | {} | {} | {} | {} | {} |\n", i + 1, c.id, c.generation,
                      markdown_cell(c.operator_name), duration_ms(c.median_ms()),
                      speedup(speedup_of(c, d.baseline_ms)), markdown_cell(first_line(c.strategy)));
  }
  if (d.top.empty()) md += "| - | - | - | - | - | - | no correct candidate |\n";
  return md;
}

}  // namespace kforge
