#include "backend/include_policy.h"

#include <cctype>
#include <optional>
#include <set>
#include <vector>

#include "util/files.h"
#include "util/hash.h"

namespace kforge {
namespace fs = std::filesystem;
namespace {

constexpr int kMaxDepth = 64;  // deeper nesting is refused rather than followed

// Translation phases 1-3 as far as directives care: trigraphs, line splices, comments.
// Newlines are kept (a spliced line leaves its newline at the end) so lines still match.
std::string directive_text(const std::string& source) {
  std::string text;
  text.reserve(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source.compare(i, 3, "?\?=") == 0) text += '#', i += 2;
    else if (source.compare(i, 3, "?\?/") == 0) text += '\\', i += 2;
    else text += source[i];
  }
  // Line splices: a backslash, optional blanks (clang accepts them), then a newline.
  std::string spliced;
  spliced.reserve(text.size());
  std::size_t pending_newlines = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\') {
      std::size_t j = i + 1;
      while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r')) ++j;
      if (j < text.size() && text[j] == '\n') {
        ++pending_newlines;
        i = j;
        continue;
      }
    }
    spliced += text[i];
    if (text[i] == '\n') spliced.append(pending_newlines, '\n'), pending_newlines = 0;
  }
  // Comments become one space; string and character literals are skipped whole.
  std::string out;
  out.reserve(spliced.size());
  for (std::size_t i = 0; i < spliced.size(); ++i) {
    const char c = spliced[i];
    if (c == '"' || c == '\'') {
      out += c;
      for (++i; i < spliced.size() && spliced[i] != c && spliced[i] != '\n'; ++i) {
        out += spliced[i];
        if (spliced[i] == '\\' && i + 1 < spliced.size() && spliced[i + 1] != '\n') out += spliced[++i];
      }
      if (i < spliced.size()) out += spliced[i];
    } else if (c == '/' && i + 1 < spliced.size() && spliced[i + 1] == '/') {
      while (i < spliced.size() && spliced[i] != '\n') ++i;
      out += ' ';
      if (i < spliced.size()) out += '\n';
    } else if (c == '/' && i + 1 < spliced.size() && spliced[i + 1] == '*') {
      out += ' ';
      for (i += 2; i < spliced.size() && spliced.compare(i, 2, "*/") != 0; ++i)
        if (spliced[i] == '\n') out += '\n';
      ++i;  // past the '/' of "*/"
    } else {
      out += c;
    }
  }
  return out;
}

struct Directive {
  std::string keyword;  // include, include_next, import, embed
  std::string written;  // as written, for messages: "\"a.h\"", "<a.h>", "MACRO"
  std::string name;     // the header name inside the delimiters; empty if computed
  bool quoted = false;
};

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::vector<Directive> include_directives(const std::string& source) {
  static const std::set<std::string> kIncluding{"include", "include_next", "import", "embed"};
  std::vector<Directive> found;
  const std::string text = directive_text(source);
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    std::size_t i = 0;
    while (i < line.size() && is_blank(line[i])) ++i;
    if (line.compare(i, 1, "#") == 0) i += 1;
    else if (line.compare(i, 2, "%:") == 0) i += 2;  // digraph for '#'
    else continue;
    while (i < line.size() && is_blank(line[i])) ++i;
    std::size_t word_end = i;
    while (word_end < line.size() && (std::isalnum(static_cast<unsigned char>(line[word_end])) || line[word_end] == '_'))
      ++word_end;
    Directive directive;
    directive.keyword = line.substr(i, word_end - i);
    if (!kIncluding.count(directive.keyword)) continue;
    i = word_end;
    while (i < line.size() && is_blank(line[i])) ++i;
    const char open = i < line.size() ? line[i] : '\0';
    const char close = open == '"' ? '"' : open == '<' ? '>' : '\0';
    const std::size_t close_at = close ? line.find(close, i + 1) : std::string::npos;
    if (close_at != std::string::npos) {
      directive.quoted = open == '"';
      directive.name = line.substr(i + 1, close_at - i - 1);
      directive.written = line.substr(i, close_at - i + 1);
    } else {
      directive.written = line.substr(i);
      while (!directive.written.empty() && is_blank(directive.written.back())) directive.written.pop_back();
    }
    found.push_back(std::move(directive));
  }
  return found;
}

// Whether `path` (lexically normal, absolute) lies inside `root` (lexically normal, absolute).
bool inside(const fs::path& path, const fs::path& root) {
  const fs::path relative = path.lexically_relative(root);
  return !relative.empty() && *relative.begin() != ".." && !relative.is_absolute();
}

class Scanner {
 public:
  explicit Scanner(const fs::path& task_root)
      : root_(fs::absolute(task_root).lexically_normal()), real_root_(fs::weakly_canonical(root_)) {}

  // Checks the directives of one file; `dir` is its folder (nullopt for the in-memory source).
  std::string scan(const std::string& source, const std::optional<fs::path>& dir, int depth) {
    for (const Directive& directive : include_directives(source)) {
      if (std::string error = check(directive, dir, depth); !error.empty()) return error;
    }
    return "";
  }

  std::string digest() const { return content_hash(parts_); }

 private:
  std::string refuse(const Directive& d, const std::string& why) const {
    return "error: #" + d.keyword + " " + d.written + ": " + why +
           "; generated code may include only files inside the task folder " + root_.string();
  }

  std::string check(const Directive& d, const std::optional<fs::path>& dir, int depth) {
    if (d.keyword != "include") return refuse(d, "#" + d.keyword + " is not allowed");
    if (d.name.empty()) return refuse(d, "computed or malformed includes are not allowed");
    const fs::path name(d.name);
    if (name.is_absolute() || d.name.front() == '~') return refuse(d, "absolute paths are not allowed");
    if (depth >= kMaxDepth) return refuse(d, "includes nested deeper than " + std::to_string(kMaxDepth));
    // Every place the compiler would look must lie inside the task folder: the including
    // file's folder (quoted includes of a task header), then the task folder (the only -I).
    std::vector<fs::path> places;
    if (d.quoted && dir) places.push_back(*dir);
    places.push_back(root_);
    for (const fs::path& place : places) {
      const fs::path candidate = (place / name).lexically_normal();
      if (!inside(candidate, root_)) return refuse(d, "the path leaves the task folder");
      std::error_code error;
      const fs::file_status status = fs::symlink_status(candidate, error);
      if (error || !fs::exists(status)) {
        // A dangling symlink or one whose target is missing: say so rather than fall through.
        if (fs::is_symlink(status)) return refuse(d, "a symlink that leaves the task folder or points nowhere");
        continue;
      }
      const fs::path real = fs::weakly_canonical(candidate, error);
      if (error || !inside(real, real_root_)) return refuse(d, "a symlink that leaves the task folder");
      if (!fs::is_regular_file(real)) return refuse(d, "not a regular file");
      const std::string content = read_file(real);
      parts_.push_back(candidate.lexically_relative(root_).string());
      parts_.push_back(content);
      if (!active_.insert(real.string()).second) return "";  // an include cycle; guards stop the compiler
      std::string nested = scan(content, candidate.parent_path(), depth + 1);
      active_.erase(real.string());
      if (!nested.empty()) return nested;
      return "";
    }
    // Not in the task folder: the compiler's own headers (cuda_fp16.h, opencl-c.h). The name
    // is relative and does not climb out, so it cannot reach beyond the toolchain's folders.
    parts_.push_back("<toolchain>" + d.name);
    return "";
  }

  fs::path root_, real_root_;
  std::vector<std::string> parts_;
  std::set<std::string> active_;
};

}  // namespace

IncludeScan scan_includes(const std::string& source, const fs::path& task_root) {
  Scanner scanner(task_root);
  IncludeScan scan;
  scan.error = scanner.scan(source, std::nullopt, 0);
  if (scan.error.empty()) scan.digest = scanner.digest();
  return scan;
}

std::string include_option_error(const std::string& option) {
  static const char* kRefused[] = {"-I", "-include", "-imacros", "-isystem", "-iquote", "-idirafter", "-iprefix",
                                   "-iwithprefix", "--include-path", "--pre-include", "-F", "-L", "-B",
                                   "--sysroot", "-isysroot", "@"};
  for (const char* prefix : kRefused) {
    if (option.rfind(prefix, 0) == 0)
      return "error: compiler option '" + option +
             "' is not allowed: candidates cannot add include paths or files";
  }
  return "";
}

}  // namespace kforge
