// Shared helpers of the profile tests: fixture paths and scratch folders.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

#include "support/temp_dir.h"
#include "util/files.h"

namespace kforge::test {

inline std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(KFORGE_SOURCE_DIR) / "tests" / "profile" / "data" / name;
}

inline std::string read_fixture(const std::string& name) { return read_file(fixture(name)); }

using kforge::testing::TempDir;

}  // namespace kforge::test
