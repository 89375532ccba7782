// Guard zones around device buffers: both backends surround the bytes a kernel sees with
// canary-filled memory and later check it, which catches out-of-bounds writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kforge {

// Large enough that an off-by-a-few-elements write of any scalar type lands in the guard,
// and a multiple of 256 so the kernel's pointer keeps cuMemAlloc's alignment.
inline constexpr std::size_t kGuardBytes = 256;

// A non-repeating byte sequence: a kernel that writes a plausible value (0, 1.0f, an index)
// past the end cannot reproduce it by accident, unlike a single memset byte.
inline std::vector<std::uint8_t> guard_canary(std::size_t bytes) {
  std::vector<std::uint8_t> canary(bytes);
  for (std::size_t i = 0; i < bytes; ++i) canary[i] = static_cast<std::uint8_t>(0xA5 + 37 * i);
  return canary;
}

}  // namespace kforge
