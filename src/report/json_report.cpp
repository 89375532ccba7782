#include "report/json_report.h"

#include "report/report_sections.h"

namespace kforge {

nlohmann::json render_json(const ReportData& d) {
  auto optional = [](const auto& value) -> nlohmann::json {
    if (value) return *value;
    return nullptr;
  };
  nlohmann::json j;
  j["task"] = d.task_name;
  j["language"] = d.language;
  j["status"] = d.settings.status;
  j["started_at"] = d.settings.started_at;
  j["device"] = d.device_name;
  j["baseline_median_ms"] = optional(d.baseline_ms);
  j["generations"] = d.generations.size();
  j["last_completed_generation"] = nullptr;
  for (const auto& g : d.generations)
    if (!g.finished_at.empty()) j["last_completed_generation"] = g.generation;
  j["candidates"] = d.candidates.size();
  j["status_counts"] = d.status_counts;
  j["llm"] = {{"exchanges", d.llm.exchanges}, {"input_tokens", d.llm.input_tokens},
              {"output_tokens", d.llm.output_tokens}, {"cost_usd", d.llm.cost_usd}};
  if (d.best) {
    nlohmann::json lineage = nlohmann::json::array();
    for (const auto& c : d.lineage) lineage.push_back({{"id", c.id}, {"operator", c.operator_name}});
    j["best"] = {{"id", d.best->id},
                 {"generation", d.best->generation},
                 {"operator", d.best->operator_name},
                 {"strategy", d.best->strategy},
                 {"median_ms", optional(d.best->median_ms())},
                 {"speedup", optional(d.best_speedup)},
                 {"params", d.best->params},
                 {"options", d.best->compile_options},
                 {"build_options", d.build_options},
                 {"metrics", to_json(d.best->metrics)},
                 {"lineage", lineage},
                 {"operator_chain", operator_chain(d)},
                 {"lines_added", d.lines_added},
                 {"lines_removed", d.lines_removed},
                 {"source_file", "best" + d.extension}};
  } else {
    j["best"] = nullptr;
  }
  nlohmann::json generations = nlohmann::json::array();
  for (const auto& g : d.generations)
    generations.push_back({{"generation", g.generation},
                           {"best_median_ms", optional(g.best_median_ms)},
                           {"best_candidate_id", optional(g.best_candidate_id)},
                           {"evaluated", g.evaluated},
                           {"correct", g.correct},
                           {"wall_s", g.wall_s},
                           {"finished", !g.finished_at.empty()}});
  j["generation_history"] = generations;
  return j;
}

}  // namespace kforge
