#include "report/report_sections.h"

#include "report/text_format.h"

namespace kforge {

using namespace report_text;

std::string operator_chain(const ReportData& data) {
  std::string chain;
  for (const auto& c : data.lineage) {
    if (!chain.empty()) chain += " -> ";
    chain += c.operator_name + " #" + std::to_string(c.id);
    if (!c.strategy.empty()) chain += " (" + first_line(c.strategy, 60) + ")";
  }
  return chain;
}

std::string best_speedup_text(const ReportData& data) {
  std::string text = speedup(data.best_speedup);
  if (data.best_speedup && data.best_speedup_ci_low && data.best_speedup_ci_high) {
    text += " (95% CI " + number(*data.best_speedup_ci_low) + "-" + speedup(data.best_speedup_ci_high);
    text += *data.best_speedup_ci_low > 1 ? ")" : ", not significant)";
  }
  return text;
}

std::string headline(const ReportData& data) {
  const std::size_t generations = data.generations.size();
  const std::string after = " after " + std::to_string(generations) +
                            (generations == 1 ? " generation." : " generations.");
  if (!data.best) return "No correct candidate was found" + after;
  std::string text = data.best_speedup ? best_speedup_text(data) + " faster than the baseline"
                                       : "Best candidate #" + std::to_string(data.best->id);
  text += " (" + duration_ms(data.baseline_ms) + " -> " + duration_ms(data.best->median_ms()) + ")";
  return text + after;
}

}  // namespace kforge
