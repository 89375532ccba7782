#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kforge {

// 128-bit XXH3 content hash as 32 hex digits; used for compile-cache keys and dedup.
std::string content_hash(std::string_view data);
std::string content_hash(const std::vector<std::string>& parts);  // parts are length-delimited

}  // namespace kforge
