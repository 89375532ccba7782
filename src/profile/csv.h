// The small CSV dialect profilers write: comma-separated, optionally double-quoted fields
// with "" as an escaped quote, one record per line, numbers that may carry thousands
// separators ("1,234.5" inside quotes).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kforge::csv {

// Fields of one line; nullopt when a quote is left open (a truncated or garbled line).
std::optional<std::vector<std::string>> parse_line(std::string_view line);
// Lines of text without their line ends ("\r\n" or "\n").
std::vector<std::string> split_lines(const std::string& text);
// "1,234.5" -> 1234.5; "  12 " -> 12; "n/a", "", "abc" -> nullopt.
std::optional<double> parse_number(std::string_view text);

// A CSV table located by its header; rows whose field count differs are skipped.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  int skipped_lines = 0;  // malformed or short lines after the header
  int column(const std::string& name) const;  // -1 when absent
  const std::string& cell(const std::vector<std::string>& row, const std::string& name) const;  // "" when absent
};
// What to do with a row that has fewer fields than the header.
enum class ShortRows {
  Skip,  // count it in skipped_lines
  // Keep it, padded with empty fields, when it reaches every required column (ncu's details
  // page ends metric rows after "Metric Value" and a trailing comma, before its rule columns).
  PadIfRequiredPresent,
};

// The first line whose fields include every name in `required_columns` becomes the header;
// nullopt when no line does. Lines before it (tool banners, program output) are ignored.
// Rows with more fields than the header are always skipped.
std::optional<Table> find_table(const std::string& text, const std::vector<std::string>& required_columns,
                                ShortRows short_rows = ShortRows::Skip);

}  // namespace kforge::csv
