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

std::string headline(const ReportData& data) {
  const std::size_t generations = data.generations.size();
  const std::string after = " after " + std::to_string(generations) +
                            (generations == 1 ? " generation." : " generations.");
  if (!data.best) return "No correct candidate was found" + after;
  std::string text = data.best_speedup ? speedup(data.best_speedup) + " faster than the baseline"
                                       : "Best candidate #" + std::to_string(data.best->id);
  text += " (" + duration_ms(data.baseline_ms) + " -> " + duration_ms(data.best->median_ms()) + ")";
  return text + after;
}

}  // namespace kforge
