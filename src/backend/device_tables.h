// Lookups shared by every Device's id-keyed tables of buffers and kernels: a bad id or an
// oversized transfer is a DeviceError with the same wording on every backend.
#pragma once

#include <cstddef>
#include <string>

#include "backend/backend.h"

namespace kforge {

template <typename Table>
typename Table::mapped_type& find_by_id(Table& table, int id, const char* kind) {
  auto found = table.find(id);
  if (found == table.end()) throw DeviceError(std::string("unknown ") + kind + " " + std::to_string(id), false);
  return found->second;
}

// `buffer` (any type with a `bytes` size) if a transfer of `bytes` fits in it.
template <typename Buffer>
const Buffer& require_fits(const Buffer& buffer, BufferId id, std::size_t bytes, const char* what) {
  if (bytes > buffer.bytes)
    throw DeviceError(std::string(what) + ": " + std::to_string(bytes) + " bytes exceed buffer " + std::to_string(id) +
                          " of " + std::to_string(buffer.bytes),
                      false);
  return buffer;
}

}  // namespace kforge
