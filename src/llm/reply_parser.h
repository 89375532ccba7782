// Reads what a model wrote back: the strategy it says it applied, the new kernel (a whole
// file in a fenced code block, or aider-style SEARCH/REPLACE edit blocks), numbered idea
// lists, and whether the reply is usable at all. Pure functions over text; never throw.
//
// Prompts should ask for:
//   STRATEGY: <short name>
//   RATIONALE: <one paragraph>
// followed by either the complete kernel in one ```cuda (or ```opencl, ```c, ```cpp) block, or
// edit blocks of the form
//   <<<<<<< SEARCH
//   exact lines from the current source
//   =======
//   replacement lines
//   >>>>>>> REPLACE
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kforge::llm {

struct CodeBlock {
  std::string language;   // first word of the fence's info string, lower-cased; may be empty
  std::string code;       // the lines between the fences, each ending in '\n'
  bool terminated = true;  // false: the reply ended inside the block (truncated output)
};

struct EditBlock {
  std::string search;   // lines to find, each ending in '\n'
  std::string replace;  // lines to put there instead
};

struct ParsedReply {
  enum class Kind { None, WholeFile, Edits };

  std::string strategy;   // from "STRATEGY: ..."; empty when absent
  std::string rationale;  // from "RATIONALE: ..." (may continue over following lines)
  std::vector<CodeBlock> code_blocks;  // every fenced block, in order
  std::optional<CodeBlock> kernel_file;  // the block chosen as the whole new kernel
  std::vector<EditBlock> edits;          // well-formed edit blocks, in order
  std::vector<std::string> ideas;        // items of numbered lists outside code blocks
  std::vector<std::string> problems;     // malformed parts noticed (reported, not fatal)
  std::string garbled;  // non-empty: the reply is unusable as an answer, and why

  // Edits win over a whole file when a reply has both: code blocks next to edit blocks are
  // usually quotes of the current source.
  Kind kind() const {
    if (!edits.empty()) return Kind::Edits;
    if (kernel_file) return Kind::WholeFile;
    return Kind::None;
  }
};

ParsedReply parse_reply(std::string_view text);

// "STRATEGY", "RATIONALE", ...: tolerant of case, markdown bold and list bullets. A multi-line
// field continues until a blank line, a code fence, an edit marker or another FIELD: line.
std::string extract_field(std::string_view text, std::string_view name, bool multi_line);

std::vector<CodeBlock> extract_code_blocks(std::string_view text);
// Has a kernel entry point: __global__ (CUDA/HIP), __kernel / kernel void (OpenCL), @triton.jit.
bool looks_like_kernel(std::string_view code);
// Among complete blocks that contain a kernel and no edit markers: the last one that is at
// least half the size of the largest. Models often restate the whole kernel at the end, but
// a short snippet after it ("the key change is ...") must not win over the full file.
std::optional<CodeBlock> choose_kernel_block(const std::vector<CodeBlock>& blocks);

struct EditBlockParse {
  std::vector<EditBlock> blocks;
  std::vector<std::string> problems;  // e.g. "edit block 3 has no >>>>>>> REPLACE line"
};
EditBlockParse extract_edit_blocks(std::string_view text);

std::vector<std::string> extract_ideas(std::string_view text);

// Why the reply cannot be an answer (empty, binary junk, a degenerate repetition loop), or "".
std::string detect_garbled(std::string_view text);

struct EditFailure {
  std::size_t index = 0;  // 0-based position in the edit list
  std::string reason;
};

struct EditApplication {
  std::string source;                      // the source after all edits that applied
  std::vector<std::size_t> applied;        // indices of edits that applied, in order
  std::vector<std::size_t> applied_fuzzy;  // of those, the ones matched ignoring whitespace
  std::vector<EditFailure> failed;         // every edit that did not apply, with the reason

  bool all_applied() const { return failed.empty(); }
};

// Applies the edits in order, each to the result of the previous ones. A SEARCH section must
// match exactly one place: exactly first, then line by line ignoring whitespace differences
// and blank lines (re-indenting the replacement to the matched code). Ambiguous or missing
// matches are failures, reported with their index; the other edits still apply.
EditApplication apply_edit_blocks(std::string_view source, const std::vector<EditBlock>& edits);

}  // namespace kforge::llm
