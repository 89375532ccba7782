#include "util/hash.h"

#include <xxhash.h>

#include <fmt/format.h>

namespace kforge {

std::string content_hash(std::string_view data) {
  XXH128_hash_t h = XXH3_128bits(data.data(), data.size());
  return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

std::string content_hash(const std::vector<std::string>& parts) {
  std::string joined;
  for (const auto& part : parts) {
    joined += std::to_string(part.size());
    joined += ':';
    joined += part;
  }
  return content_hash(joined);
}

}  // namespace kforge
