// "Did you mean": the known name closest to a mistyped one (`kforge optimise`, `--generatons`).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kforge::cli {

// The candidate within edit distance 2 (or a third of the word's length, if larger) of `typed`,
// the closest first; nothing when none is that close.
std::optional<std::string> closest_name(const std::string& typed, const std::vector<std::string>& candidates);

}  // namespace kforge::cli
