#include "report/html_report.h"

#include "report/report_sections.h"
#include "report/svg_plots.h"
#include "report/text_format.h"

#include <fmt/format.h>

namespace kforge {

using namespace report_text;

namespace {

constexpr const char* kStyle = R"CSS(
body { font-family: -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #212121; background: #f5f5f5; }
main { max-width: 1100px; margin: 0 auto; padding: 24px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 32px 0 10px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
.headline { font-size: 17px; color: #1565c0; margin: 4px 0 16px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; }
.card { background: #fff; border: 1px solid #e0e0e0; border-radius: 8px; padding: 10px 16px; min-width: 130px; }
.card .value { font-size: 22px; font-weight: 600; }
.card .label { font-size: 12px; color: #757575; }
table { border-collapse: collapse; background: #fff; font-size: 13px; }
th, td { border: 1px solid #e0e0e0; padding: 4px 10px; text-align: right; }
th { background: #fafafa; }
td.text, th.text { text-align: left; }
svg.plot { max-width: 100%; height: auto; background: #fff; border: 1px solid #e0e0e0; border-radius: 6px; }
.side { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
pre.diff { background: #fff; border: 1px solid #e0e0e0; padding: 10px; overflow-x: auto; font-size: 12px; line-height: 1.35; }
pre.diff .add { background: #e8f5e9; color: #1b5e20; display: block; }
pre.diff .del { background: #ffebee; color: #b71c1c; display: block; }
pre.diff .hunk { color: #6a1b9a; display: block; }
.dot { display: inline-block; width: 10px; height: 10px; border-radius: 5px; margin-right: 6px; }
.muted { color: #757575; }
)CSS";

std::string card(const std::string& value, const std::string& label) {
  return "<div class=\"card\"><div class=\"value\">" + html_escape(value) +
         "</div><div class=\"label\">" + html_escape(label) + "</div></div>\n";
}

std::string cell(const std::string& text, bool left = false) {
  return std::string(left ? "<td class=\"text\">" : "<td>") + html_escape(text) + "</td>";
}

std::string figure_or_note(const std::string& svg, const std::string& note) {
  return svg.empty() ? "<p class=\"muted\">" + html_escape(note) + "</p>\n" : svg;
}

std::string diff_block(const std::string& diff) {
  std::string out = "<pre class=\"diff\">";
  std::size_t start = 0;
  while (start < diff.size()) {
    auto end = diff.find('\n', start);
    if (end == std::string::npos) end = diff.size();
    const std::string line = diff.substr(start, end - start);
    const char* cls = nullptr;
    if (line.rfind("@@", 0) == 0) cls = "hunk";
    else if (line.rfind("+++", 0) == 0 || line.rfind("---", 0) == 0) cls = nullptr;
    else if (!line.empty() && line[0] == '+') cls = "add";
    else if (!line.empty() && line[0] == '-') cls = "del";
    // Spans are display:block, so they carry their own line break.
    out += cls ? fmt::format("<span class=\"{}\">{}</span>", cls, html_escape(line))
               : html_escape(line) + "\n";
    start = end + 1;
  }
  return out + "</pre>\n";
}

std::string profile_table(const nlohmann::json& baseline, const nlohmann::json& best) {
  static const char* keys[] = {"bound", "arithmetic_intensity", "achieved_gflops", "achieved_gbps",
                               "peak_gflops", "peak_gbps"};
  std::string out = "<table class=\"profile\"><tr><th class=\"text\">metric</th><th>baseline</th>"
                    "<th>best</th></tr>\n";
  auto value = [](const nlohmann::json& profile, const char* key) -> std::string {
    if (!profile.is_object() || !profile.contains(key)) return "-";
    return json_cell(profile[key]);
  };
  for (const char* key : keys)
    out += "<tr>" + cell(key, true) + cell(value(baseline, key)) + cell(value(best, key)) + "</tr>\n";
  return out + "</table>\n";
}

}  // namespace

std::string render_html(const ReportData& d) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<title>kforge report: " + html_escape(d.task_name) + "</title>\n";
  h += std::string("<style>") + kStyle + "</style>\n</head>\n<body>\n<main>\n";
  h += "<h1>kforge report: " + html_escape(d.task_name) + "</h1>\n";
  h += "<p class=\"headline\">" + html_escape(headline(d)) + "</p>\n";

  h += "<section id=\"summary\">\n<div class=\"cards\">\n";
  h += card(speedup(d.best_speedup), "best speedup");
  h += card(duration_ms(d.best ? d.best->median_ms() : std::nullopt), "best median");
  h += card(duration_ms(d.baseline_ms), "baseline median");
  h += card(std::to_string(d.candidates.size()), "candidates");
  auto correct = d.status_counts.find("correct");
  h += card(std::to_string(correct == d.status_counts.end() ? 0 : correct->second), "correct");
  h += card(std::to_string(d.generations.size()), "generations");
  if (d.llm.exchanges > 0) h += card(fmt::format("${:.2f}", d.llm.cost_usd), "LLM cost");
  h += card(d.settings.status.empty() ? "-" : d.settings.status, "run status");
  h += "</div>\n<p>Task <b>" + html_escape(d.task_name) + "</b> (" + html_escape(d.language) + ")";
  if (!d.device_name.empty()) h += " on " + html_escape(d.device_name);
  if (!d.settings.started_at.empty()) h += ", started " + html_escape(d.settings.started_at);
  h += ".</p>\n";
  if (d.best) {
    h += "<p><b>Operator chain:</b> " + html_escape(operator_chain(d)) + "</p>\n";
    if (!d.best->rationale.empty())
      h += "<p><b>Rationale:</b> " + html_escape(d.best->rationale) + "</p>\n";
  }
  h += "</section>\n";

  h += "<section id=\"generations\">\n<h2>Best latency per generation</h2>\n";
  h += figure_or_note(svg::best_latency_per_generation(d.generations, d.baseline_ms),
                      "No generation has finished yet.");
  h += "<table><tr><th>generation</th><th>best median</th><th>best candidate</th><th>evaluated</th>"
       "<th>correct</th><th>wall time</th></tr>\n";
  for (const auto& g : d.generations)
    h += "<tr>" + cell(std::to_string(g.generation)) + cell(duration_ms(g.best_median_ms)) +
         cell(g.best_candidate_id ? "#" + std::to_string(*g.best_candidate_id) : "-") +
         cell(std::to_string(g.evaluated)) + cell(std::to_string(g.correct)) +
         cell(g.finished_at.empty() ? "unfinished" : number(g.wall_s) + " s") + "</tr>\n";
  h += "</table>\n</section>\n";

  h += "<section id=\"candidates\">\n<h2>All candidates</h2>\n";
  h += figure_or_note(svg::candidate_scatter(d.candidates, d.baseline_ms), "No candidates yet.");
  h += "<div class=\"side\">\n<table><tr><th class=\"text\">status</th><th>count</th></tr>\n";
  for (const auto& [status, count] : d.status_counts)
    h += "<tr><td class=\"text\"><span class=\"dot\" style=\"background:" + svg::status_colour(status) +
         "\"></span>" + html_escape(status) + "</td>" + cell(std::to_string(count)) + "</tr>\n";
  h += "</table>\n<table><tr><th>rank</th><th>id</th><th>gen</th><th class=\"text\">operator</th>"
       "<th>median</th><th>speedup</th><th class=\"text\">strategy</th></tr>\n";
  for (std::size_t i = 0; i < d.top.size(); ++i) {
    const auto& c = d.top[i];
    h += "<tr>" + cell(std::to_string(i + 1)) + cell("#" + std::to_string(c.id)) +
         cell(std::to_string(c.generation)) + cell(c.operator_name, true) +
         cell(duration_ms(c.median_ms())) + cell(speedup(speedup_of(c, d.baseline_ms))) +
         cell(first_line(c.strategy, 60), true) + "</tr>\n";
  }
  h += "</table>\n</div>\n</section>\n";

  if (d.best) {
    h += "<section id=\"lineage\">\n<h2>Lineage of the best</h2>\n";
    h += svg::lineage_chain(d.lineage, d.baseline_ms);
    h += "</section>\n";
  }

  if (!d.best_sizes.empty()) {
    h += "<section id=\"sizes\">\n<h2>Per-size results of the best</h2>\n<table><tr><th class=\"text\">size</th>";
    for (const auto& column : d.size_columns) h += "<th>" + html_escape(column) + "</th>";
    h += "</tr>\n";
    for (const auto& row : d.best_sizes) {
      h += "<tr>" + cell(row.name, true);
      for (const auto& column : d.size_columns) {
        auto it = row.values.find(column);
        h += cell(it == row.values.end() ? "-" : json_cell(it->second));
      }
      h += "</tr>\n";
    }
    h += "</table>\n</section>\n";
  }

  const nlohmann::json baseline_profile = d.baseline ? d.baseline->profile : nlohmann::json();
  const nlohmann::json best_profile = d.best ? d.best->profile : nlohmann::json();
  const std::string roof = svg::roofline(baseline_profile, best_profile);
  if (!roof.empty()) {
    h += "<section id=\"roofline\">\n<h2>Roofline: baseline and best</h2>\n<div class=\"side\">\n";
    h += roof + profile_table(baseline_profile, best_profile) + "</div>\n</section>\n";
  }

  if (d.best) {
    h += "<section id=\"diff\">\n<h2>Changes against the original (best" + html_escape(d.extension) +
         ")</h2>\n";
    h += d.diff.empty() ? "<p class=\"muted\">The best kernel's source is the original's.</p>\n"
                        : diff_block(d.diff);
    h += "</section>\n";
  }
  h += "<p class=\"muted\">Generated by kforge";
  if (!d.settings.kforge_version.empty()) h += " " + html_escape(d.settings.kforge_version);
  h += ".</p>\n</main>\n</body>\n</html>\n";
  return h;
}

}  // namespace kforge
