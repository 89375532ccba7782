// libFuzzer target: the LLM reply parser (fields, code blocks, edit blocks, ideas) and the
// edit applier, which get text from a model kforge does not control.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "llm/reply_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)kforge::llm::parse_reply(text);
  (void)kforge::llm::extract_field(text, "idea", false);
  (void)kforge::llm::extract_field(text, "analysis", true);
  const auto blocks = kforge::llm::extract_code_blocks(text);
  (void)kforge::llm::choose_kernel_block(blocks);
  (void)kforge::llm::extract_ideas(text);
  (void)kforge::llm::detect_garbled(text);
  const auto edits = kforge::llm::extract_edit_blocks(text);
  // Edits applied to the reply itself: search strings that do and do not occur.
  (void)kforge::llm::apply_edit_blocks(text, edits.blocks);
  return 0;
}
