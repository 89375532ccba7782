// Byte-exact and JSON-safe text: base64 carries source and binaries through the JSON-lines
// protocol unchanged; valid_utf8 makes compiler logs (which echo source lines, whatever their
// bytes) safe to store in SQLite, JSON reports and prompts.
#pragma once

#include <string>
#include <string_view>

namespace kforge {

std::string base64_encode(std::string_view bytes);
// Throws std::runtime_error on a character outside the base64 alphabet.
std::string base64_decode(std::string_view text);

// `text` with every byte that is not part of a well-formed UTF-8 sequence replaced by U+FFFD.
std::string valid_utf8(std::string_view text);

}  // namespace kforge
