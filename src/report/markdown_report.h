#pragma once

#include "report/report_data.h"

#include <string>

namespace kforge {

// report.md: summary, operator chain, per-size results, generations, statuses, top 10.
std::string render_markdown(const ReportData& data);

}  // namespace kforge
