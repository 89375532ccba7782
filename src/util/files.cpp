#include "util/files.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kforge {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot open for reading");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void write_file(const std::filesystem::path& path, const std::string& contents) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  auto temp = path;
  temp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(temp.string() + ": cannot open for writing");
    out << contents;
    out.flush();
    if (!out) throw std::runtime_error(temp.string() + ": write failed (disk full?)");
  }
  std::filesystem::rename(temp, path);
}

std::filesystem::path cache_dir() {
  std::filesystem::path dir;
  if (const char* env = std::getenv("KFORGE_CACHE_DIR"); env && *env) {
    dir = env;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    dir = std::filesystem::path(xdg) / "kforge";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    dir = std::filesystem::path(home) / ".cache" / "kforge";
  } else {
    dir = std::filesystem::temp_directory_path() / "kforge-cache";
  }
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace kforge
