#include "llm/text_lines.h"

#include <algorithm>
#include <cctype>

namespace kforge::llm::text {

std::vector<std::string> split_lines(std::string_view input) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < input.size()) {
    auto end = input.find('\n', start);
    if (end == std::string_view::npos) end = input.size();
    std::string_view line = input.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.emplace_back(line);
    start = end + 1;
  }
  return lines;
}

std::string_view trim(std::string_view input) {
  const auto first = input.find_first_not_of(" \t\r\n\f\v");
  if (first == std::string_view::npos) return {};
  const auto last = input.find_last_not_of(" \t\r\n\f\v");
  return input.substr(first, last - first + 1);
}

std::string lower(std::string_view input) {
  std::string out(input);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string leading_whitespace(std::string_view line) {
  const auto first = line.find_first_not_of(" \t");
  return std::string(line.substr(0, first == std::string_view::npos ? line.size() : first));
}

std::string collapse_whitespace(std::string_view line) {
  std::string out;
  bool pending_space = false;
  for (char c : trim(line)) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      pending_space = true;
      continue;
    }
    if (pending_space) out += ' ';
    pending_space = false;
    out += c;
  }
  return out;
}

bool is_blank(std::string_view line) { return trim(line).empty(); }

std::size_t fence_length(std::string_view line) {
  const std::string_view trimmed = trim(line);
  if (trimmed.empty() || (trimmed[0] != '`' && trimmed[0] != '~')) return 0;
  const char fence = trimmed[0];
  std::size_t count = 0;
  while (count < trimmed.size() && trimmed[count] == fence) ++count;
  return count >= 3 ? count : 0;
}

namespace {
bool is_marker(std::string_view line, char marker, std::string_view word) {
  const std::string_view trimmed = trim(line);
  std::size_t count = 0;
  while (count < trimmed.size() && trimmed[count] == marker) ++count;
  if (count < 5 || count > 9) return false;
  return trim(trimmed.substr(count)) == word;
}
}  // namespace

bool is_search_marker(std::string_view line) { return is_marker(line, '<', "SEARCH"); }
bool is_divider_marker(std::string_view line) { return is_marker(line, '=', ""); }
bool is_replace_marker(std::string_view line) { return is_marker(line, '>', "REPLACE"); }

}  // namespace kforge::llm::text
