// Line diff (Myers' O(ND) algorithm) and GNU-compatible unified diff output, so that
// best.diff can be read by people and applied with `patch -p1`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kforge {

// Lines keep their "\n"; a last line without one differs from the same text with one,
// which is how unified diffs express "\ No newline at end of file".
std::vector<std::string> split_lines(std::string_view text);

struct DiffOp {
  enum Kind { Equal, Delete, Insert } kind;
  std::size_t old_index;  // Equal, Delete: line in old; Insert: lines of old before it
  std::size_t new_index;  // Equal, Insert: line in new; Delete: lines of new before it
};

// A shortest edit script turning old_lines into new_lines.
std::vector<DiffOp> diff_lines(const std::vector<std::string>& old_lines,
                               const std::vector<std::string>& new_lines);

// "--- old_label\n+++ new_label\n@@ ... @@" hunks with `context` lines around changes;
// empty when the texts are identical.
std::string unified_diff(std::string_view old_text, std::string_view new_text,
                         const std::string& old_label, const std::string& new_label,
                         std::size_t context = 3);

struct DiffStats {
  std::size_t added = 0;
  std::size_t removed = 0;
};
DiffStats diff_stats(std::string_view old_text, std::string_view new_text);

}  // namespace kforge
