// Levenshtein distance over short words; written here because it is ten lines and CLI11 offers
// no suggestions.
#include "cli/suggest.h"

#include <algorithm>
#include <numeric>

namespace kforge::cli {
namespace {
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}
}  // namespace

std::optional<std::string> closest_name(const std::string& typed, const std::vector<std::string>& candidates) {
  const std::size_t allowed = std::max<std::size_t>(2, typed.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = allowed + 1;
  for (const auto& candidate : candidates) {
    const std::size_t distance = edit_distance(typed, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

}  // namespace kforge::cli
