// Small pieces of report text that Markdown and HTML both show.
#pragma once

#include "report/report_data.h"

#include <string>

namespace kforge {

// "seed #1 -> tune #4 -> llm-mutate #9 (vectorize loads)".
std::string operator_chain(const ReportData& data);
// "1.23x (95% CI 1.20-1.26x)", with "not significant" when the interval reaches down to 1.
std::string best_speedup_text(const ReportData& data);
// One sentence: "2.41x faster than the baseline (1.20 ms -> 0.498 ms) after 5 generations."
std::string headline(const ReportData& data);

}  // namespace kforge
