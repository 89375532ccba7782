#include "report/line_diff.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

namespace kforge {
namespace {

// Applies a unified diff produced by unified_diff() to `old_text`: the test's independent
// check that the hunks are consistent with both files.
std::string apply_patch(const std::string& old_text, const std::string& patch) {
  const auto old_lines = split_lines(old_text);
  const auto patch_lines = split_lines(patch);
  std::string out;
  std::size_t next_old = 0;  // first old line not yet copied
  std::size_t i = 2;         // skip ---/+++ headers
  while (i < patch_lines.size()) {
    const std::string& header = patch_lines[i++];
    EXPECT_EQ(header.rfind("@@ -", 0), 0u) << header;
    std::size_t start = std::stoul(header.substr(4));
    std::size_t count = 1;
    const auto comma = header.find(',');
    if (comma != std::string::npos && comma < header.find(' ', 4)) count = std::stoul(header.substr(comma + 1));
    const std::size_t first = count == 0 ? start : start - 1;  // 0-based first old line
    while (next_old < first) out += old_lines[next_old++];
    while (i < patch_lines.size() && patch_lines[i].rfind("@@", 0) != 0) {
      std::string line = patch_lines[i++].substr(0);
      const char tag = line[0];
      std::string body = line.substr(1);
      if (i < patch_lines.size() && patch_lines[i].rfind("\\ No newline", 0) == 0) {
        body.pop_back();  // the '\n' our writer added
        ++i;
      }
      if (tag == ' ') {
        EXPECT_EQ(old_lines.at(next_old), body);
        out += body;
        ++next_old;
      } else if (tag == '-') {
        EXPECT_EQ(old_lines.at(next_old), body);
        ++next_old;
      } else {
        EXPECT_EQ(tag, '+');
        out += body;
      }
    }
  }
  while (next_old < old_lines.size()) out += old_lines[next_old++];
  return out;
}

std::size_t lcs_length(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::vector<std::size_t>> t(a.size() + 1, std::vector<std::size_t>(b.size() + 1, 0));
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j)
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
  return t[a.size()][b.size()];
}

std::string gnu_diff(const std::string& a, const std::string& b) {
  const auto dir = std::filesystem::temp_directory_path() / ("kforge-diff-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "a", std::ios::binary) << a;
  std::ofstream(dir / "b", std::ios::binary) << b;
  const std::string command = "cd " + dir.string() + " && diff -u a b | tail -n +3";
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[4096];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    ::pclose(pipe);
  }
  std::filesystem::remove_all(dir);
  return out;
}

std::string body_of(const std::string& diff) {  // without the ---/+++ header lines
  auto second = diff.find('\n', diff.find('\n') + 1);
  return second == std::string::npos ? "" : diff.substr(second + 1);
}

struct Case {
  const char* name;
  std::string a, b;
};

std::vector<Case> cases() {
  std::string ten;
  for (int i = 1; i <= 10; ++i) ten += "line " + std::to_string(i) + "\n";
  std::string far_apart = ten;
  far_apart.replace(0, 7, "LINE 1\n");
  far_apart.replace(far_apart.find("line 10"), 7, "LINE 10");
  return {
      {"both empty", "", ""},
      {"identical", "a\nb\n", "a\nb\n"},
      {"from empty", "", "a\nb\n"},
      {"to empty", "a\nb\n", ""},
      {"insert at start", "b\nc\n", "a\nb\nc\n"},
      {"insert at end", "a\nb\n", "a\nb\nc\n"},
      {"change middle", ten, [&] { auto s = ten; s.replace(s.find("line 5"), 6, "LINE 5"); return s; }()},
      {"two hunks", ten + ten, [&] { auto s = ten + ten; s.replace(0, 6, "first!"); s += "tail\n"; return s; }()},
      {"merged hunk", ten, far_apart.substr(0, far_apart.find("line 7")) + "line 7\nline 8\nline 9\nLINE 10\n"},
      {"no newline at end", "a\nb", "a\nb\n"},
      {"no newline both", "a\nb", "a\nc"},
      {"replace all", "x\ny\n", "p\nq\nr\n"},
  };
}

TEST(LineDiff, SplitKeepsTerminators) {
  EXPECT_TRUE(split_lines("").empty());
  EXPECT_EQ(split_lines("a\nb"), (std::vector<std::string>{"a\n", "b"}));
  EXPECT_EQ(split_lines("a\n\n"), (std::vector<std::string>{"a\n", "\n"}));
}

TEST(LineDiff, IdenticalAndEmptyGiveNoDiff) {
  EXPECT_EQ(unified_diff("", "", "a", "b"), "");
  EXPECT_EQ(unified_diff("x\ny\n", "x\ny\n", "a", "b"), "");
}

TEST(LineDiff, InsertionsAtBothEnds) {
  EXPECT_EQ(unified_diff("b\n", "a\nb\nc\n", "a/f", "b/f"),
            "--- a/f\n+++ b/f\n@@ -1 +1,3 @@\n+a\n b\n+c\n");
  EXPECT_EQ(unified_diff("", "a\n", "a/f", "b/f"), "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+a\n");
  EXPECT_EQ(unified_diff("a\n", "", "a/f", "b/f"), "--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-a\n");
}

TEST(LineDiff, MissingFinalNewlineIsMarked) {
  EXPECT_EQ(unified_diff("a\nb", "a\nb\n", "x", "y"),
            "--- x\n+++ y\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
}

TEST(LineDiff, PatchesApplyAndMatchGnuDiff) {
  const bool have_diff = std::system("diff --version >/dev/null 2>&1") == 0;
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    const auto diff = unified_diff(c.a, c.b, "a/k.cu", "b/k.cu");
    EXPECT_EQ(apply_patch(c.a, diff), c.b);
    if (have_diff) {
      EXPECT_EQ(body_of(diff), gnu_diff(c.a, c.b));
    }
  }
}

TEST(LineDiff, RandomEditsAreMinimalAndApply) {
  std::mt19937 rng(1234);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> a, b;
    const int na = static_cast<int>(rng() % 25), nb = static_cast<int>(rng() % 25);
    for (int i = 0; i < na; ++i) a.push_back(std::string(1, static_cast<char>('a' + rng() % 4)) + "\n");
    for (int i = 0; i < nb; ++i) b.push_back(std::string(1, static_cast<char>('a' + rng() % 4)) + "\n");
    std::string ta, tb;
    for (const auto& l : a) ta += l;
    for (const auto& l : b) tb += l;
    if (rng() % 5 == 0 && !ta.empty()) ta.pop_back();  // sometimes no final newline
    const auto ops = diff_lines(split_lines(ta), split_lines(tb));
    std::size_t edits = 0;
    for (const auto& op : ops) edits += op.kind != DiffOp::Equal;
    const auto la = split_lines(ta), lb = split_lines(tb);
    ASSERT_EQ(edits, la.size() + lb.size() - 2 * lcs_length(la, lb)) << "round " << round;
    ASSERT_EQ(apply_patch(ta, unified_diff(ta, tb, "a", "b")), tb) << "round " << round;
    const auto context0 = unified_diff(ta, tb, "a", "b", 0);
    ASSERT_EQ(apply_patch(ta, context0), tb) << "round " << round;
  }
}

TEST(LineDiff, LargeRewriteStaysFast) {
  std::string a, b;
  for (int i = 0; i < 3000; ++i) {
    a += "old " + std::to_string(i) + "\n";
    b += "new " + std::to_string(i) + "\n";
  }
  const auto stats = diff_stats(a, b);
  EXPECT_EQ(stats.added, 3000u);
  EXPECT_EQ(stats.removed, 3000u);
}

}  // namespace
}  // namespace kforge
