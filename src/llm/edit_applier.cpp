// apply_edit_blocks (declared in reply_parser.h): line-based matching of SEARCH sections.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "llm/reply_parser.h"
#include "llm/text_lines.h"

namespace kforge::llm {
namespace {

struct Source {
  std::vector<std::string> lines;
  bool trailing_newline = true;

  static Source from(std::string_view text) {
    Source source;
    source.lines = text::split_lines(text);
    source.trailing_newline = text.empty() || text.back() == '\n';
    return source;
  }
  std::string str() const {
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      out += lines[i];
      if (i + 1 < lines.size() || trailing_newline) out += '\n';
    }
    return out;
  }
};

struct Match {
  std::size_t first = 0;  // first source line replaced
  std::size_t last = 0;   // one past the last
  std::size_t count = 0;  // how many places matched
};

Match exact_matches(const std::vector<std::string>& source, const std::vector<std::string>& search) {
  Match match;
  if (search.empty() || search.size() > source.size()) return match;
  for (std::size_t i = 0; i + search.size() <= source.size(); ++i) {
    if (std::equal(search.begin(), search.end(), source.begin() + static_cast<std::ptrdiff_t>(i))) {
      if (match.count++ == 0) match = {i, i + search.size(), 1};
    }
  }
  return match;
}

// Compares non-blank lines with whitespace collapsed; blank lines on either side are skipped,
// since models rarely reproduce blank lines faithfully.
Match fuzzy_matches(const std::vector<std::string>& source, const std::vector<std::string>& search) {
  std::vector<std::string> wanted;
  for (const auto& line : search) {
    if (!text::is_blank(line)) wanted.push_back(text::collapse_whitespace(line));
  }
  std::vector<std::size_t> positions;  // source index of each non-blank source line
  std::vector<std::string> normalized;
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (!text::is_blank(source[i])) {
      positions.push_back(i);
      normalized.push_back(text::collapse_whitespace(source[i]));
    }
  }
  Match match;
  if (wanted.empty() || wanted.size() > normalized.size()) return match;
  for (std::size_t i = 0; i + wanted.size() <= normalized.size(); ++i) {
    if (std::equal(wanted.begin(), wanted.end(), normalized.begin() + static_cast<std::ptrdiff_t>(i))) {
      if (match.count++ == 0) match = {positions[i], positions[i + wanted.size() - 1] + 1, 1};
    }
  }
  return match;
}

// The model's indentation may differ from the file's; shift the replacement by the difference
// between the first SEARCH line and the line it matched.
std::vector<std::string> reindent(const std::vector<std::string>& replace,
                                  const std::vector<std::string>& search,
                                  const std::string& matched_first_line) {
  std::string from;
  for (const auto& line : search) {
    if (!text::is_blank(line)) {
      from = text::leading_whitespace(line);
      break;
    }
  }
  const std::string to = text::leading_whitespace(matched_first_line);
  if (from == to) return replace;
  std::vector<std::string> out;
  for (const auto& line : replace) {
    if (!text::is_blank(line) && line.compare(0, from.size(), from) == 0) {
      out.push_back(to + line.substr(from.size()));
    } else {
      out.push_back(line);
    }
  }
  return out;
}

std::string first_missing_line(const std::vector<std::string>& source,
                               const std::vector<std::string>& search) {
  for (const auto& line : search) {
    if (text::is_blank(line)) continue;
    const std::string wanted = text::collapse_whitespace(line);
    bool found = false;
    for (const auto& candidate : source) {
      if (text::collapse_whitespace(candidate) == wanted) {
        found = true;
        break;
      }
    }
    if (!found) return wanted.substr(0, 80);
  }
  return "";
}

}  // namespace

EditApplication apply_edit_blocks(std::string_view original, const std::vector<EditBlock>& edits) {
  EditApplication result;
  Source source = Source::from(original);
  for (std::size_t index = 0; index < edits.size(); ++index) {
    const auto search = text::split_lines(edits[index].search);
    auto replace = text::split_lines(edits[index].replace);
    auto fail = [&](std::string reason) { result.failed.push_back({index, std::move(reason)}); };

    const bool search_blank = std::all_of(search.begin(), search.end(),
                                          [](const std::string& line) { return text::is_blank(line); });
    if (search_blank) {
      // An empty SEARCH means "the whole file" only when there is no file yet.
      if (std::all_of(source.lines.begin(), source.lines.end(),
                      [](const std::string& line) { return text::is_blank(line); })) {
        source.lines = replace;
        source.trailing_newline = true;
        result.applied.push_back(index);
      } else {
        fail("SEARCH section is empty");
      }
      continue;
    }

    bool fuzzy = false;
    Match match = exact_matches(source.lines, search);
    if (match.count == 0) {
      match = fuzzy_matches(source.lines, search);
      fuzzy = true;
    }
    if (match.count == 0) {
      const std::string missing = first_missing_line(source.lines, search);
      fail(missing.empty() ? "SEARCH lines not found in this order in the source"
                           : "SEARCH line not found in the source: '" + missing + "'");
      continue;
    }
    if (match.count > 1) {
      fail(fmt::format("SEARCH section matches {} places{}; include more surrounding lines",
                       match.count, fuzzy ? " (ignoring whitespace)" : ""));
      continue;
    }
    if (fuzzy) replace = reindent(replace, search, source.lines[match.first]);
    source.lines.erase(source.lines.begin() + static_cast<std::ptrdiff_t>(match.first),
                       source.lines.begin() + static_cast<std::ptrdiff_t>(match.last));
    source.lines.insert(source.lines.begin() + static_cast<std::ptrdiff_t>(match.first),
                        replace.begin(), replace.end());
    result.applied.push_back(index);
    if (fuzzy) result.applied_fuzzy.push_back(index);
  }
  result.source = source.str();
  return result;
}

}  // namespace kforge::llm
