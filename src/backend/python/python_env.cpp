#include "backend/python/python_env.h"

#include <cstdlib>

namespace kforge {
namespace fs = std::filesystem;
namespace {

// The checkout holding python/kforge_worker.py, found upward from the running executable
// (build/bin/kforge, build/test_eval, ...).
fs::path checkout_root() {
  std::error_code error;
  fs::path dir = fs::read_symlink("/proc/self/exe", error).parent_path();
  if (error) return {};
  for (int depth = 0; depth < 5 && !dir.empty(); ++depth) {
    if (fs::exists(dir / "python" / "kforge_worker.py")) return dir;
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return {};
}
}  // namespace

bool is_python_language(Language language) { return language_facts(language).worker == WorkerKind::Python; }

fs::path python_interpreter() {
  if (const char* env = std::getenv("KFORGE_PYTHON"); env && *env) return env;
  const fs::path root = checkout_root();
  if (!root.empty() && fs::exists(root / ".venv" / "bin" / "python")) return root / ".venv" / "bin" / "python";
  return "python3";
}

fs::path python_dir() {
  if (const char* env = std::getenv("KFORGE_PYTHON_DIR"); env && *env) return env;
  const fs::path root = checkout_root();
  return root.empty() ? fs::path() : root / "python";
}

std::vector<std::string> python_worker_command(Language language, int device_index) {
  const fs::path dir = python_dir();
  const fs::path script = dir.empty() ? fs::path("kforge_worker.py") : dir / "kforge_worker.py";
  return {python_interpreter().string(), script.string(), "--backend", to_string(language), "--device",
          std::to_string(device_index)};
}

}  // namespace kforge
