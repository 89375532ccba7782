#include "profile/units.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>

namespace kforge {
namespace {

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

bool strip_suffix(std::string& text, const std::string& suffix) {
  if (text.size() < suffix.size() || text.compare(text.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  text.resize(text.size() - suffix.size());
  return true;
}

std::optional<double> byte_scale(const std::string& unit) {
  static const std::pair<const char*, double> scales[] = {
      {"byte", 1},        {"b", 1},          {"kbyte", 1e3},     {"kb", 1e3},        {"mbyte", 1e6},
      {"mb", 1e6},        {"gbyte", 1e9},    {"gb", 1e9},        {"tbyte", 1e12},    {"tb", 1e12},
      {"kib", 1024.0},    {"mib", 1048576.0}, {"gib", 1073741824.0}, {"tib", 1099511627776.0},
  };
  for (const auto& [name, scale] : scales)
    if (unit == name) return scale;
  return std::nullopt;
}

std::optional<double> second_scale(const std::string& unit) {
  static const std::pair<const char*, double> scales[] = {
      {"second", 1},  {"s", 1},       {"sec", 1},     {"msecond", 1e-3}, {"ms", 1e-3},
      {"usecond", 1e-6}, {"us", 1e-6}, {"nsecond", 1e-9}, {"ns", 1e-9},
  };
  for (const auto& [name, scale] : scales)
    if (unit == name) return scale;
  return std::nullopt;
}

std::optional<double> hertz_scale(const std::string& unit) {
  static const std::pair<const char*, double> scales[] = {
      {"hz", 1},    {"khz", 1e3}, {"mhz", 1e6}, {"ghz", 1e9},
      {"cycle/second", 1}, {"cycle/usecond", 1e6}, {"cycle/nsecond", 1e9},
  };
  for (const auto& [name, scale] : scales)
    if (unit == name) return scale;
  return std::nullopt;
}
}  // namespace

Quantity normalize_unit(double value, const std::string& unit) {
  const std::string lower = lowercase(unit);
  if (lower == "%" || lower == "percent" || lower == "pct") return {value, "%"};
  if (auto scale = hertz_scale(lower)) return {value * *scale, "hertz"};
  if (auto scale = byte_scale(lower)) return {value * *scale, "byte"};
  if (auto scale = second_scale(lower)) return {value * *scale, "second"};
  std::string per = lower;
  if (strip_suffix(per, "/second") || strip_suffix(per, "/s") || strip_suffix(per, "/sec") ||
      strip_suffix(per, "ps")) {
    if (auto scale = byte_scale(per)) return {value * *scale, "byte/second"};
  }
  return {value, unit};
}

}  // namespace kforge
