#include "task/manifest_search.h"

#include <toml++/toml.h>

#include <algorithm>

#include "task/task.h"

namespace kforge {
namespace fs = std::filesystem;
namespace {

bool is_manifest_name(const fs::path& file) {
  std::string name = file.filename().string();
  return name == "kforge.toml" || (name.size() > 12 && name.ends_with(".kforge.toml"));
}


// Only [task] source is read, so that a manifest broken elsewhere is still found and its
// error reported by load_task rather than silently skipped.
bool manifest_names_source(const fs::path& manifest, const fs::path& source) {
  try {
    toml::table root = toml::parse_file(manifest.string());
    auto relative = root["task"]["source"].value<std::string>();
    if (!relative) return false;
    std::error_code ec;
    return fs::equivalent(manifest.parent_path() / *relative, source, ec);
  } catch (const toml::parse_error&) {
    return false;
  }
}

std::vector<fs::path> manifests_below(const fs::path& folder) {
  std::vector<fs::path> found;
  for (auto it = fs::recursive_directory_iterator(folder); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && skipped_when_scanning(it->path())) {
      it.disable_recursion_pending();
    } else if (it->is_regular_file() && is_manifest_name(it->path())) {
      found.push_back(it->path());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::vector<fs::path> manifests_for_source(const fs::path& source) {
  std::vector<fs::path> found;
  fs::path folder = source.has_parent_path() ? source.parent_path() : fs::path(".");
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.is_regular_file() && is_manifest_name(entry.path()) && manifest_names_source(entry.path(), source))
      found.push_back(entry.path());
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

std::vector<fs::path> find_manifests(const fs::path& file_or_folder) {
  if (!fs::exists(file_or_folder))
    throw TaskError(file_or_folder.string() + ": no such file or folder; pass a task folder, a kforge.toml or a kernel source");
  if (fs::is_directory(file_or_folder)) return manifests_below(file_or_folder);
  if (file_or_folder.extension() == ".toml") return {file_or_folder};
  return manifests_for_source(file_or_folder);
}

bool skipped_when_scanning(const fs::path& dir) {
  const std::string name = dir.filename().string();
  if ((!name.empty() && name[0] == '.') || name == "__pycache__") return true;
  std::error_code ec;
  return fs::exists(dir / "run.db", ec);
}

}  // namespace kforge
