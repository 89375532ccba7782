#include "report/line_diff.h"

#include <algorithm>

namespace kforge {

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    if (end == std::string_view::npos) {
      lines.emplace_back(text.substr(start));
      break;
    }
    lines.emplace_back(text.substr(start, end - start + 1));
    start = end + 1;
  }
  return lines;
}

namespace {

// Beyond this many edits the D^2 trace would need too much memory (2000^2 ints = 16 MB);
// such a rewrite is shown as "remove everything, add everything", which is still a
// correct diff, only not a minimal one.
constexpr long kMaxEdits = 2000;

// Myers' greedy algorithm on the middle part a[lo_a, hi_a) vs b[lo_b, hi_b), after the
// common prefix and suffix were stripped (which keeps the D^2 trace small for typical
// kernel edits). Appends the script for that part to `out`.
void myers(const std::vector<std::string>& a, std::size_t lo_a, std::size_t hi_a,
           const std::vector<std::string>& b, std::size_t lo_b, std::size_t hi_b,
           std::vector<DiffOp>& out) {
  const long n = static_cast<long>(hi_a - lo_a), m = static_cast<long>(hi_b - lo_b);
  const long max = n + m;
  std::vector<int> v(2 * static_cast<std::size_t>(max) + 3, 0);
  auto V = [&](long k) -> int& { return v[static_cast<std::size_t>(k + max + 1)]; };
  // trace[d] = V[-d-1 .. d+1] before step d: all the backtrack needs.
  std::vector<std::vector<int>> trace;
  long final_d = -1;
  for (long d = 0; d <= std::min(max, kMaxEdits); ++d) {
    trace.emplace_back(v.begin() + (max + 1 - d - 1), v.begin() + (max + 1 + d + 2));
    bool done = false;
    for (long k = -d; k <= d; k += 2) {
      long x = (k == -d || (k != d && V(k - 1) < V(k + 1))) ? V(k + 1) : V(k - 1) + 1;
      long y = x - k;
      while (x < n && y < m && a[lo_a + x] == b[lo_b + y]) ++x, ++y;
      V(k) = static_cast<int>(x);
      if (x >= n && y >= m) {
        done = true;
        break;
      }
    }
    if (done) {
      final_d = d;
      break;
    }
  }
  if (final_d < 0) {
    for (long i = 0; i < n; ++i) out.push_back({DiffOp::Delete, lo_a + i, lo_b});
    for (long j = 0; j < m; ++j) out.push_back({DiffOp::Insert, hi_a, lo_b + j});
    return;
  }
  // Walk back from (n, m), collecting the script in reverse.
  std::vector<DiffOp> reversed;
  long x = n, y = m;
  for (long d = final_d; d >= 0; --d) {
    const auto& t = trace[static_cast<std::size_t>(d)];
    auto T = [&](long k) { return t[static_cast<std::size_t>(k + d + 1)]; };
    const long k = x - y;
    long prev_k, prev_x;
    if (d == 0) {
      prev_k = 0, prev_x = 0;
    } else {
      prev_k = (k == -d || (k != d && T(k - 1) < T(k + 1))) ? k + 1 : k - 1;
      prev_x = T(prev_k);
    }
    const long prev_y = prev_x - prev_k;
    // The snake: diagonal moves back to where this step's edit ended.
    const long snake_x = d == 0 ? 0 : (prev_k == k + 1 ? prev_x : prev_x + 1);
    while (x > snake_x) {
      --x, --y;
      reversed.push_back({DiffOp::Equal, lo_a + x, lo_b + y});
    }
    if (d > 0) {
      if (prev_k == k + 1)  // came down: inserted b[prev_y]
        reversed.push_back({DiffOp::Insert, lo_a + prev_x, lo_b + prev_y});
      else  // came right: deleted a[prev_x]
        reversed.push_back({DiffOp::Delete, lo_a + prev_x, lo_b + prev_y});
    }
    x = prev_x, y = prev_y;
  }
  out.insert(out.end(), reversed.rbegin(), reversed.rend());
}

// GNU diff's range: "start,count", "start" when count is 1, and for an empty range the
// line before it.
std::string range(std::size_t start, std::size_t count) {
  if (count == 1) return std::to_string(start + 1);
  return std::to_string(count == 0 ? start : start + 1) + "," + std::to_string(count);
}

void append_line(std::string& out, char tag, const std::string& line) {
  out += tag;
  out += line;
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

}  // namespace

std::vector<DiffOp> diff_lines(const std::vector<std::string>& old_lines,
                               const std::vector<std::string>& new_lines) {
  std::size_t prefix = 0;
  while (prefix < old_lines.size() && prefix < new_lines.size() &&
         old_lines[prefix] == new_lines[prefix])
    ++prefix;
  std::size_t suffix = 0;
  while (suffix < old_lines.size() - prefix && suffix < new_lines.size() - prefix &&
         old_lines[old_lines.size() - 1 - suffix] == new_lines[new_lines.size() - 1 - suffix])
    ++suffix;
  std::vector<DiffOp> ops;
  for (std::size_t i = 0; i < prefix; ++i) ops.push_back({DiffOp::Equal, i, i});
  myers(old_lines, prefix, old_lines.size() - suffix, new_lines, prefix, new_lines.size() - suffix,
        ops);
  for (std::size_t i = suffix; i > 0; --i)
    ops.push_back({DiffOp::Equal, old_lines.size() - i, new_lines.size() - i});
  return ops;
}

std::string unified_diff(std::string_view old_text, std::string_view new_text,
                         const std::string& old_label, const std::string& new_label,
                         std::size_t context) {
  const auto a = split_lines(old_text);
  const auto b = split_lines(new_text);
  const auto ops = diff_lines(a, b);
  std::string out;
  std::size_t i = 0;
  while (i < ops.size()) {
    // Find the next change, then extend the hunk while changes are close together.
    while (i < ops.size() && ops[i].kind == DiffOp::Equal) ++i;
    if (i == ops.size()) break;
    std::size_t begin = i >= context ? i - context : 0;
    std::size_t end = i;  // one past the last change in this hunk
    for (std::size_t j = i; j < ops.size(); ++j) {
      if (ops[j].kind != DiffOp::Equal) {
        end = j + 1;
      } else if (j - end + 1 > 2 * context) {
        break;
      }
    }
    const std::size_t stop = std::min(ops.size(), end + context);
    std::size_t old_count = 0, new_count = 0;
    for (std::size_t j = begin; j < stop; ++j) {
      if (ops[j].kind != DiffOp::Insert) ++old_count;
      if (ops[j].kind != DiffOp::Delete) ++new_count;
    }
    if (out.empty()) out = "--- " + old_label + "\n+++ " + new_label + "\n";
    out += "@@ -" + range(ops[begin].old_index, old_count) + " +" +
           range(ops[begin].new_index, new_count) + " @@\n";
    for (std::size_t j = begin; j < stop; ++j) {
      const auto& op = ops[j];
      if (op.kind == DiffOp::Equal) append_line(out, ' ', a[op.old_index]);
      else if (op.kind == DiffOp::Delete) append_line(out, '-', a[op.old_index]);
      else append_line(out, '+', b[op.new_index]);
    }
    i = stop;
  }
  return out;
}

DiffStats diff_stats(std::string_view old_text, std::string_view new_text) {
  DiffStats stats;
  for (const auto& op : diff_lines(split_lines(old_text), split_lines(new_text))) {
    if (op.kind == DiffOp::Insert) ++stats.added;
    if (op.kind == DiffOp::Delete) ++stats.removed;
  }
  return stats;
}

}  // namespace kforge
