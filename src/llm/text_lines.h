// Small line-oriented string helpers shared by the reply parser and the edit applier.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kforge::llm::text {

// Splits on '\n', dropping a '\r' before it; a final line without '\n' is kept.
std::vector<std::string> split_lines(std::string_view text);
std::string_view trim(std::string_view text);
std::string lower(std::string_view text);
std::string leading_whitespace(std::string_view line);
// Whitespace runs collapsed to one space, ends trimmed: "a  =\tb" -> "a = b".
std::string collapse_whitespace(std::string_view line);
bool is_blank(std::string_view line);
// Length of a fence opener/closer (``` or ~~~, 3 or more) at the start of the trimmed line, 0 if none.
std::size_t fence_length(std::string_view line);

// The marker lines of aider-style edit blocks (5 to 9 marker characters tolerated).
bool is_search_marker(std::string_view line);
bool is_divider_marker(std::string_view line);
bool is_replace_marker(std::string_view line);

}  // namespace kforge::llm::text
