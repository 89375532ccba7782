#include "profile/csv.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace kforge::csv {

std::optional<std::vector<std::string>> parse_line(std::string_view line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else {
      field += c;
    }
  }
  if (quoted) return std::nullopt;
  fields.push_back(std::move(field));
  return fields;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

std::optional<double> parse_number(std::string_view text) {
  std::string digits;
  for (char c : text)
    if (c != ',' && !std::isspace(static_cast<unsigned char>(c))) digits += c;
  if (digits.empty()) return std::nullopt;
  double value = 0;
  const char* begin = digits.data();
  if (*begin == '+') ++begin;
  const auto [end, error] = std::from_chars(begin, digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

int Table::column(const std::string& name) const {
  const auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

const std::string& Table::cell(const std::vector<std::string>& row, const std::string& name) const {
  static const std::string empty;
  const int index = column(name);
  return index < 0 || static_cast<std::size_t>(index) >= row.size() ? empty : row[static_cast<std::size_t>(index)];
}

std::optional<Table> find_table(const std::string& text, const std::vector<std::string>& required_columns,
                                ShortRows short_rows) {
  std::optional<Table> table;
  std::size_t min_fields = 0;  // fields up to and including the last required column
  for (const std::string& line : split_lines(text)) {
    if (!table) {
      auto fields = parse_line(line);
      if (!fields) continue;
      const bool has_all = std::all_of(required_columns.begin(), required_columns.end(), [&](const std::string& name) {
        return std::find(fields->begin(), fields->end(), name) != fields->end();
      });
      if (!has_all) continue;
      table = Table{std::move(*fields), {}, 0};
      min_fields = table->header.size();
      if (short_rows == ShortRows::PadIfRequiredPresent) {
        min_fields = 0;
        for (const auto& name : required_columns)
          min_fields = std::max(min_fields, static_cast<std::size_t>(table->column(name)) + 1);
      }
      continue;
    }
    if (line.empty()) continue;
    auto fields = parse_line(line);
    if (!fields || fields->size() < min_fields || fields->size() > table->header.size()) {
      ++table->skipped_lines;
      continue;
    }
    fields->resize(table->header.size());
    table->rows.push_back(std::move(*fields));
  }
  return table;
}

}  // namespace kforge::csv
