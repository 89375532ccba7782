// `kforge init`: drafts a kforge.toml for a detected kernel.
#pragma once

#include <filesystem>
#include <string>

#include "task/detect.h"

namespace kforge {

// TOML text for `manifest_dir/kforge.toml` that loads and runs as is for elementwise kernels:
// const pointers become inputs, other pointers outputs, the first integer scalar the size
// variable `n` (sizes 1048576 and 1000003), float scalars the value 2, and a tunable BLOCK
// (128/256/512, default 256) sets block = BLOCK and grid = ceil_div(n, BLOCK). Triton kernels
// tune their first tl.constexpr parameter instead. Guesses are marked with comments.
std::string draft_manifest(const DetectedKernel& kernel, const std::filesystem::path& manifest_dir);

}  // namespace kforge
