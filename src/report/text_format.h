// Number and text formatting shared by the report writers.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace kforge::report_text {

std::string html_escape(const std::string& text);
// Escapes "|" and newlines so text fits in one Markdown table cell.
std::string markdown_cell(const std::string& text);
// "1.23 ms", "45.6 us" for sub-0.1 ms values; "-" when absent.
std::string duration_ms(std::optional<double> ms);
// "3.42x"; "-" when absent.
std::string speedup(std::optional<double> factor);
// Compact number: 3 significant digits, no exponent for ordinary magnitudes.
std::string number(double value);
// A JSON scalar as a table cell (numbers via number()).
std::string json_cell(const nlohmann::json& value);
// First line of a text, cut to max characters with an ellipsis.
std::string first_line(const std::string& text, std::size_t max = 80);

}  // namespace kforge::report_text
