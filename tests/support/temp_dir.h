// The one scratch-folder helper of every test suite: TempDir is a fresh folder under the
// system temp dir, removed with everything in it at scope exit (kept when
// KFORGE_KEEP_TEST_FILES is set, for a look afterwards); make_temp_dir makes one that stays
// (end-to-end tests whose folders a failure report names).
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace kforge::testing {

// A fresh, empty folder named `<prefix>-XXXXXX` under the system temp dir; never removed.
inline std::filesystem::path make_temp_dir(const std::string& prefix = "kforge-test") {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
  return pattern;
}

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "kforge-test") : path_(make_temp_dir(prefix)) {}
  ~TempDir() {
    if (std::getenv("KFORGE_KEEP_TEST_FILES")) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Writes `contents` to `relative` inside the folder (creating sub-folders); its full path.
  std::filesystem::path write(const std::string& relative, const std::string& contents) const {
    const auto file = path_ / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << contents;
    return file;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace kforge::testing
