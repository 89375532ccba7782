#include "search/operators/source_edit.h"

#include <algorithm>

namespace kforge {

std::string apply_edits(std::string source, std::vector<SourceEdit> edits) {
  // Back to front, so earlier offsets stay valid.
  std::sort(edits.begin(), edits.end(), [](const SourceEdit& a, const SourceEdit& b) { return a.offset > b.offset; });
  for (const auto& edit : edits) source.replace(edit.offset, edit.length, edit.text);
  return source;
}

std::size_t line_start(const std::string& source, std::size_t offset) {
  const std::size_t newline = offset == 0 ? std::string::npos : source.rfind('\n', offset - 1);
  return newline == std::string::npos ? 0 : newline + 1;
}

bool starts_line(const std::string& source, std::size_t offset) {
  const std::size_t begin = line_start(source, offset);
  return source.find_first_not_of(" \t", begin) >= offset;
}

}  // namespace kforge
