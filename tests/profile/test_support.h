// Shared helpers of the profile tests: fixture paths and scratch folders.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

#include "util/files.h"

namespace kforge::test {

inline std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(KFORGE_SOURCE_DIR) / "tests" / "profile" / "data" / name;
}

inline std::string read_fixture(const std::string& name) { return read_file(fixture(name)); }

// A fresh folder under /tmp, removed with the object.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/kforge-profile-test-XXXXXX";
    path_ = ::mkdtemp(pattern);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace kforge::test
