#pragma once

#include "report/report_data.h"

#include <nlohmann/json.hpp>

namespace kforge {

// report.json: the key numbers, for scripts and CI.
nlohmann::json render_json(const ReportData& data);

}  // namespace kforge
