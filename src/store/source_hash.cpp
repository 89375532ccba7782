#include "store/source_hash.h"

#include "util/hash.h"

#include <cctype>

namespace kforge {
namespace {

// Copies a quoted literal starting at source[i] (the quote) into out; returns the index
// just past its closing quote (or the end of the text).
std::size_t copy_literal(const std::string& source, std::size_t i, std::string& out) {
  const char quote = source[i];
  out += quote;
  for (++i; i < source.size(); ++i) {
    out += source[i];
    if (source[i] == '\\' && i + 1 < source.size()) {
      out += source[++i];
    } else if (source[i] == quote || source[i] == '\n') {
      return i + 1;
    }
  }
  return i;
}

std::string normalize_c_like(const std::string& source) {
  std::string out;
  bool pending_space = false;  // whitespace (or a comment) seen since the last token
  auto emit_space = [&] {
    if (pending_space && !out.empty()) out += ' ';
    pending_space = false;
  };
  std::size_t i = 0;
  while (i < source.size()) {
    const char c = source[i];
    if (c == '/' && i + 1 < source.size() && source[i + 1] == '/') {
      while (i < source.size() && source[i] != '\n') ++i;
      pending_space = true;
    } else if (c == '/' && i + 1 < source.size() && source[i + 1] == '*') {
      auto end = source.find("*/", i + 2);
      i = end == std::string::npos ? source.size() : end + 2;
      pending_space = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      // Preprocessor lines end at newlines, so a newline stays a newline.
      if (c == '\n' && !out.empty() && out.back() != '\n') {
        out += '\n';
        pending_space = false;
      } else if (c != '\n' && (out.empty() || out.back() != '\n')) {
        pending_space = true;
      }
      ++i;
    } else if (c == '"' || c == '\'') {
      emit_space();
      i = copy_literal(source, i, out);
    } else {
      emit_space();
      out += c;
      ++i;
    }
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string normalize_python(const std::string& source) {
  std::string out;
  std::string line;
  auto flush = [&] {
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    if (!line.empty()) out += line + '\n';  // blank lines carry no meaning
    line.clear();
  };
  std::size_t i = 0;
  while (i < source.size()) {
    const char c = source[i];
    if (c == '#') {
      while (i < source.size() && source[i] != '\n') ++i;
    } else if (c == '"' || c == '\'') {
      std::string literal;
      i = copy_literal(source, i, literal);
      line += literal;
    } else if (c == '\n') {
      flush();
      ++i;
    } else {
      line += c;
      ++i;
    }
  }
  flush();
  return out;
}

}  // namespace

std::string normalize_source(const std::string& source, SourceSyntax syntax) {
  return syntax == SourceSyntax::Python ? normalize_python(source) : normalize_c_like(source);
}

std::string dedup_hash(const std::string& source, const std::map<std::string, std::int64_t>& params,
                       const std::vector<std::string>& compile_options, SourceSyntax syntax) {
  std::vector<std::string> parts{normalize_source(source, syntax)};
  for (const auto& [name, value] : params) parts.push_back(name + "=" + std::to_string(value));
  parts.push_back("--");  // separates params from options
  for (const auto& option : compile_options) parts.push_back(option);
  return content_hash(parts);
}

}  // namespace kforge
