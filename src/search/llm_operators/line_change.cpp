#include "search/llm_operators/line_change.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <vector>

namespace kforge {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

std::string changed_region(const std::string& before, const std::string& after, int context) {
  const auto old_lines = split_lines(before);
  const auto new_lines = split_lines(after);
  std::size_t prefix = 0;
  while (prefix < old_lines.size() && prefix < new_lines.size() && old_lines[prefix] == new_lines[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < old_lines.size() - prefix && suffix < new_lines.size() - prefix &&
         old_lines[old_lines.size() - 1 - suffix] == new_lines[new_lines.size() - 1 - suffix])
    ++suffix;
  if (prefix == old_lines.size() && prefix == new_lines.size()) return "";

  const std::size_t keep = static_cast<std::size_t>(std::max(context, 0));
  const std::size_t start = prefix - std::min(prefix, keep);
  const std::size_t old_end = old_lines.size() - suffix;
  const std::size_t new_end = new_lines.size() - suffix;
  const std::size_t tail = std::min(suffix, keep);
  std::string text = fmt::format("@@ -{},{} +{},{} @@\n", start + 1, old_end + tail - start, start + 1,
                                 new_end + tail - start);
  for (std::size_t i = start; i < prefix; ++i) text += " " + old_lines[i] + "\n";
  for (std::size_t i = prefix; i < old_end; ++i) text += "-" + old_lines[i] + "\n";
  for (std::size_t i = prefix; i < new_end; ++i) text += "+" + new_lines[i] + "\n";
  for (std::size_t i = old_end; i < old_end + tail; ++i) text += " " + old_lines[i] + "\n";
  return text;
}

}  // namespace kforge
