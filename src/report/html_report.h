#pragma once

#include "report/report_data.h"

#include <string>

namespace kforge {

// report.html: one self-contained page (inline CSS and SVG, no scripts, no external files).
std::string render_html(const ReportData& data);

}  // namespace kforge
