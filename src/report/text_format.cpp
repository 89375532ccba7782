#include "report/text_format.h"

#include <fmt/format.h>

#include <cmath>

namespace kforge::report_text {

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else if (c != '\r') out += c;
  }
  return out;
}

std::string number(double value) {
  if (!std::isfinite(value)) return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  const double magnitude = std::fabs(value);
  if (magnitude != 0 && (magnitude >= 1e7 || magnitude < 1e-3)) return fmt::format("{:.3g}", value);
  if (magnitude >= 100) return fmt::format("{:.0f}", value);
  if (magnitude >= 10) return fmt::format("{:.1f}", value);
  if (magnitude >= 1) return fmt::format("{:.2f}", value);
  return fmt::format("{:.3g}", value);
}

std::string duration_ms(std::optional<double> ms) {
  if (!ms) return "-";
  if (std::fabs(*ms) < 0.1) return number(*ms * 1000.0) + " us";
  return number(*ms) + " ms";
}

std::string speedup(std::optional<double> factor) {
  return factor ? number(*factor) + "x" : "-";
}

std::string json_cell(const nlohmann::json& value) {
  if (value.is_number()) return number(value.get<double>());
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "-";
  return value.dump();
}

std::string first_line(const std::string& text, std::size_t max) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() > max) line = line.substr(0, max - 3) + "...";
  return line;
}

}  // namespace kforge::report_text
