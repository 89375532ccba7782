#include "llm/reply_parser.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "llm/text_lines.h"

namespace kforge::llm {
namespace {

// Lines of `text` with a flag saying whether each is inside (or is) a code fence, so that
// field and list extraction ignore code.
struct Line {
  std::string text;
  bool in_code = false;
};

std::vector<Line> classify_lines(std::string_view input) {
  std::vector<Line> lines;
  std::size_t open_fence = 0;
  for (auto& line : text::split_lines(input)) {
    const std::size_t fence = text::fence_length(line);
    bool in_code = open_fence > 0;
    if (open_fence == 0 && fence > 0) {
      open_fence = fence;
      in_code = true;
    } else if (open_fence > 0 && fence >= open_fence && text::trim(line).size() == fence) {
      open_fence = 0;
    }
    lines.push_back({std::move(line), in_code});
  }
  return lines;
}

// Strips markdown decoration around a field label: "- **Strategy:**" -> "Strategy:".
std::string_view strip_decoration(std::string_view line) {
  line = text::trim(line);
  while (!line.empty() && (line.front() == '-' || line.front() == '*' || line.front() == '>' ||
                           line.front() == '#' || line.front() == '_' || line.front() == ' ')) {
    line.remove_prefix(1);
  }
  return line;
}

// If `line` is "NAME: value" (any case, markdown-decorated), the value; else nullopt.
std::optional<std::string> field_value(std::string_view line, std::string_view name) {
  const std::string_view body = strip_decoration(line);
  if (body.size() < name.size() || text::lower(body.substr(0, name.size())) != text::lower(name)) {
    return std::nullopt;
  }
  std::string_view rest = body.substr(name.size());
  while (!rest.empty() && (rest.front() == '*' || rest.front() == '_' || rest.front() == ' ')) {
    rest.remove_prefix(1);
  }
  if (rest.empty() || rest.front() != ':') return std::nullopt;
  rest.remove_prefix(1);
  while (!rest.empty() && (rest.front() == '*' || rest.front() == '_')) rest.remove_prefix(1);
  return std::string(text::trim(rest));
}

// "WORD:" at the start of a line, in capitals: the start of another field.
bool starts_other_field(std::string_view line) {
  const std::string_view body = strip_decoration(line);
  std::size_t letters = 0;
  while (letters < body.size() && (std::isupper(static_cast<unsigned char>(body[letters])) ||
                                   body[letters] == '_')) {
    ++letters;
  }
  if (letters < 3) return false;
  std::string_view rest = body.substr(letters);
  while (!rest.empty() && (rest.front() == '*' || rest.front() == ' ')) rest.remove_prefix(1);
  return !rest.empty() && rest.front() == ':';
}

std::string clean_field_value(std::string value) {
  // Models like to decorate names: `tiling`, "tiling", **tiling**.
  auto is_decoration = [](char c) { return c == '`' || c == '"' || c == '\'' || c == '*'; };
  while (!value.empty() && is_decoration(value.front())) value.erase(value.begin());
  while (!value.empty() && is_decoration(value.back())) value.pop_back();
  return std::string(text::trim(value));
}

// "1. text" / "2) text" -> "text"; nullopt for other lines.
std::optional<std::string> numbered_item(std::string_view line) {
  std::string_view body = text::trim(line);
  std::size_t digits = 0;
  while (digits < body.size() && std::isdigit(static_cast<unsigned char>(body[digits]))) ++digits;
  if (digits == 0 || digits > 3 || digits + 1 >= body.size()) return std::nullopt;
  if (body[digits] != '.' && body[digits] != ')') return std::nullopt;
  if (body[digits + 1] != ' ' && body[digits + 1] != '\t') return std::nullopt;
  return std::string(text::trim(body.substr(digits + 2)));
}

std::string remove_bold(std::string item) {
  for (auto at = item.find("**"); at != std::string::npos; at = item.find("**", at)) {
    item.erase(at, 2);
  }
  return item;
}

bool contains_edit_markers(std::string_view code) {
  for (const auto& line : text::split_lines(code)) {
    if (text::is_search_marker(line) || text::is_replace_marker(line)) return true;
  }
  return false;
}

// Counts UTF-8 decoding errors and control characters; a few are tolerated, many mean junk.
bool mostly_binary(std::string_view input) {
  std::size_t bad = 0;
  std::size_t i = 0;
  while (i < input.size()) {
    const auto c = static_cast<unsigned char>(input[i]);
    std::size_t length = 1;
    if (c < 0x80) {
      if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') ++bad;
    } else if ((c >> 5) == 0x6) {
      length = 2;
    } else if ((c >> 4) == 0xE) {
      length = 3;
    } else if ((c >> 3) == 0x1E) {
      length = 4;
    } else {
      ++bad;
    }
    if (length > 1) {
      bool valid = i + length <= input.size();
      for (std::size_t k = 1; valid && k < length; ++k) {
        valid = (static_cast<unsigned char>(input[i + k]) >> 6) == 0x2;
      }
      if (!valid) {
        ++bad;
        length = 1;
      } else if (length == 3 && c == 0xEF && static_cast<unsigned char>(input[i + 1]) == 0xBF &&
                 static_cast<unsigned char>(input[i + 2]) == 0xBD) {
        ++bad;  // U+FFFD: something upstream already failed to decode
      }
    }
    i += length;
  }
  return bad > 8 && bad * 50 > input.size();  // more than 2% junk
}

}  // namespace

std::string extract_field(std::string_view input, std::string_view name, bool multi_line) {
  const auto lines = classify_lines(input);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].in_code) continue;
    auto value = field_value(lines[i].text, name);
    if (!value) continue;
    std::string result = *value;
    if (multi_line) {
      for (std::size_t j = i + 1; j < lines.size(); ++j) {
        const std::string& next = lines[j].text;
        if (lines[j].in_code || text::is_blank(next) || starts_other_field(next) ||
            text::is_search_marker(next)) {
          // A label on its own line ("RATIONALE:" then the text below) skips the blank line.
          if (result.empty() && text::is_blank(next) && !lines[j].in_code) continue;
          break;
        }
        result += (result.empty() ? "" : " ") + std::string(text::trim(next));
      }
    }
    return clean_field_value(result);
  }
  return "";
}

std::vector<CodeBlock> extract_code_blocks(std::string_view input) {
  std::vector<CodeBlock> blocks;
  std::optional<CodeBlock> open;
  std::size_t open_fence = 0;
  for (const auto& line : text::split_lines(input)) {
    const std::size_t fence = text::fence_length(line);
    if (!open) {
      if (fence == 0) continue;
      open = CodeBlock{};
      open_fence = fence;
      const std::string_view info = text::trim(text::trim(line).substr(fence));
      open->language = text::lower(info.substr(0, info.find_first_of(" \t{")));
      open->terminated = false;
    } else if (fence >= open_fence && text::trim(line).size() == fence) {
      open->terminated = true;
      blocks.push_back(std::move(*open));
      open.reset();
    } else {
      open->code += line;
      open->code += '\n';
    }
  }
  if (open) blocks.push_back(std::move(*open));
  return blocks;
}

bool looks_like_kernel(std::string_view code) {
  // "class ModelNew": a KernelBench candidate is a PyTorch module, possibly with no kernel at all.
  for (std::string_view marker : {"__global__", "__kernel", "@triton.jit", "class ModelNew"}) {
    if (code.find(marker) != std::string_view::npos) return true;
  }
  // OpenCL also allows the unprefixed "kernel void name(...)".
  for (auto at = code.find("kernel"); at != std::string_view::npos; at = code.find("kernel", at + 1)) {
    const bool word_start = at == 0 || !(std::isalnum(static_cast<unsigned char>(code[at - 1])) ||
                                         code[at - 1] == '_');
    if (!word_start) continue;
    std::size_t next = at + 6;
    const std::size_t gap_start = next;
    while (next < code.size() && std::isspace(static_cast<unsigned char>(code[next]))) ++next;
    const bool followed_by_void =
        next > gap_start && code.substr(next, 4) == "void" &&
        (next + 4 == code.size() || std::isspace(static_cast<unsigned char>(code[next + 4])));
    if (followed_by_void) return true;
  }
  return false;
}

std::optional<CodeBlock> choose_kernel_block(const std::vector<CodeBlock>& blocks) {
  std::vector<const CodeBlock*> candidates;
  std::size_t largest = 0;
  for (const auto& block : blocks) {
    if (!block.terminated || !looks_like_kernel(block.code) || contains_edit_markers(block.code)) {
      continue;
    }
    candidates.push_back(&block);
    largest = std::max(largest, block.code.size());
  }
  for (auto it = candidates.rbegin(); it != candidates.rend(); ++it) {
    if ((*it)->code.size() * 2 >= largest) return **it;
  }
  return std::nullopt;
}

EditBlockParse extract_edit_blocks(std::string_view input) {
  enum class State { Outside, Search, Replace };
  EditBlockParse result;
  State state = State::Outside;
  EditBlock current;
  std::size_t number = 0;  // 1-based number of the block being read, for messages
  auto problem = [&](const std::string& what) {
    result.problems.push_back("edit block " + std::to_string(number) + " " + what);
  };
  for (const auto& line : text::split_lines(input)) {
    const bool search = text::is_search_marker(line);
    const bool divider = text::is_divider_marker(line);
    const bool replace = text::is_replace_marker(line);
    switch (state) {
      case State::Outside:
        if (search) {
          ++number;
          current = EditBlock{};
          state = State::Search;
        } else if (replace || divider) {
          // A stray marker outside a block: most likely a block whose SEARCH line is missing.
          if (replace) {
            ++number;
            problem("has >>>>>>> REPLACE without <<<<<<< SEARCH; ignored");
          }
        }
        break;
      case State::Search:
        if (divider) {
          state = State::Replace;
        } else if (search || replace) {
          problem("has no ======= line; ignored");
          if (search) {
            ++number;
            current = EditBlock{};
          } else {
            state = State::Outside;
          }
        } else {
          current.search += line + "\n";
        }
        break;
      case State::Replace:
        if (replace) {
          result.blocks.push_back(std::move(current));
          state = State::Outside;
        } else if (search) {
          problem("has no >>>>>>> REPLACE line; ignored");
          ++number;
          current = EditBlock{};
          state = State::Search;
        } else {
          current.replace += line + "\n";
        }
        break;
    }
  }
  if (state != State::Outside) problem("is unterminated (reply cut off?); ignored");
  return result;
}

std::vector<std::string> extract_ideas(std::string_view input) {
  std::vector<std::string> ideas;
  bool continuing = false;  // the previous line belonged to an idea
  for (const auto& line : classify_lines(input)) {
    if (line.in_code || text::is_blank(line.text)) {
      continuing = false;
      continue;
    }
    if (auto item = numbered_item(line.text)) {
      ideas.push_back(remove_bold(*item));
      continuing = true;
    } else if (continuing && !text::leading_whitespace(line.text).empty()) {
      // An indented line under an item continues it (wrapped text or sub-bullets).
      std::string_view more = text::trim(line.text);
      if (!more.empty() && (more.front() == '-' || more.front() == '*')) more.remove_prefix(1);
      ideas.back() += " " + remove_bold(std::string(text::trim(more)));
    } else {
      continuing = false;
    }
  }
  ideas.erase(std::remove_if(ideas.begin(), ideas.end(),
                             [](const std::string& idea) { return text::is_blank(idea); }),
              ideas.end());
  return ideas;
}

std::string detect_garbled(std::string_view input) {
  if (text::is_blank(input)) return "empty reply";
  if (mostly_binary(input)) return "reply is mostly binary or mis-encoded characters";
  // A model stuck in a loop repeats one line over and over until max_tokens.
  std::size_t run = 0;
  std::string previous;
  for (const auto& line : text::split_lines(input)) {
    const std::string current = text::collapse_whitespace(line);
    if (current.size() >= 8 && current == previous) {
      if (++run >= 16) return "reply repeats the line '" + current.substr(0, 60) + "' over and over";
    } else {
      run = 1;
    }
    previous = current;
  }
  return "";
}

ParsedReply parse_reply(std::string_view input) {
  ParsedReply reply;
  reply.garbled = detect_garbled(input);
  if (!reply.garbled.empty()) return reply;

  reply.strategy = extract_field(input, "STRATEGY", /*multi_line=*/false);
  reply.rationale = extract_field(input, "RATIONALE", /*multi_line=*/true);
  reply.code_blocks = extract_code_blocks(input);
  reply.kernel_file = choose_kernel_block(reply.code_blocks);
  auto edits = extract_edit_blocks(input);
  reply.edits = std::move(edits.blocks);
  reply.problems = std::move(edits.problems);
  reply.ideas = extract_ideas(input);

  const bool cut_off = !reply.code_blocks.empty() && !reply.code_blocks.back().terminated;
  if (cut_off) reply.problems.push_back("reply ends inside a code block (cut off?)");
  if (reply.kind() == ParsedReply::Kind::None && cut_off &&
      looks_like_kernel(reply.code_blocks.back().code)) {
    reply.garbled = "reply was cut off inside the kernel's code block (raise max_tokens?)";
  }
  return reply;
}

}  // namespace kforge::llm
