// Splices replacements into source text by byte offset, so a transform can compute all its
// edits against the original text and apply them at once.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kforge {

struct SourceEdit {
  std::size_t offset = 0;  // where the replaced bytes start
  std::size_t length = 0;  // bytes replaced; 0 inserts
  std::string text;
};

// Applies non-overlapping edits (in any order) to `source`.
std::string apply_edits(std::string source, std::vector<SourceEdit> edits);

// Offset of the first byte of the line holding `offset`.
std::size_t line_start(const std::string& source, std::size_t offset);
// Whether only spaces and tabs precede `offset` on its line.
bool starts_line(const std::string& source, std::size_t offset);

}  // namespace kforge
