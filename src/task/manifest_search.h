// Finds the kforge.toml manifests that describe a folder, a manifest, or a kernel source.
#pragma once

#include <filesystem>
#include <vector>

namespace kforge {

// A folder: every `kforge.toml` and `*.kforge.toml` below it (hidden folders skipped), sorted.
// A manifest file (*.toml): itself. A kernel source: the manifests in its folder whose
// [task] source is that file. Throws TaskError when the path does not exist.
std::vector<std::filesystem::path> find_manifests(const std::filesystem::path& file_or_folder);

// Folders a scan of a task folder never enters: hidden ones, __pycache__, and kforge's own run
// folders (they hold run.db and best.<ext> copies of the kernels, which are not new tasks).
bool skipped_when_scanning(const std::filesystem::path& dir);

}  // namespace kforge
