#pragma once

#include <filesystem>
#include <string>

namespace kforge {

// Reads a whole file; throws std::runtime_error naming the path when it cannot.
std::string read_file(const std::filesystem::path& path);
// Writes atomically (temp file + rename) so a crash never leaves a half-written file.
void write_file(const std::filesystem::path& path, const std::string& contents);
// ~/.cache/kforge or $KFORGE_CACHE_DIR, created on first use.
std::filesystem::path cache_dir();

}  // namespace kforge
