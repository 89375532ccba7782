// `kforge detect`: finds kernel entry points in CUDA, HIP, OpenCL and Triton sources with a
// small tokenizer, so that comments, strings and macro bodies never produce false kernels.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "task/task.h"

namespace kforge {

struct KernelParam {
  // The element type without qualifiers, with '*' for pointers ("float*", "unsigned int",
  // "T*"); for Triton the annotation as written ("tl.constexpr") or empty.
  std::string type;
  std::string name;  // empty for unnamed prototype parameters
  bool is_pointer = false;
  bool is_const = false;      // pointers: the pointee is const (or __constant); scalars: declared const
  bool is_constexpr = false;  // Triton: annotated tl.constexpr
  bool is_local = false;      // OpenCL: a __local pointer (work-group memory, not a buffer)
};

struct DetectedKernel {
  std::string name;
  Language language = Language::Cuda;
  std::vector<KernelParam> params;
  std::filesystem::path file;
  int line = 0;  // 1-based line of the kernel's name
  std::vector<std::string> template_params;  // "typename T", "int N"
  // Specifiers and attributes as written: "extern \"C\"", "static", "__launch_bounds__(256, 2)",
  // "[[nodiscard]]", "__attribute__((reqd_work_group_size(64, 1, 1)))", Triton decorators
  // ("triton.autotune", "triton.jit").
  std::vector<std::string> attributes;
};

// A file: its kernels; a folder: kernels of every source file below it. Sorted by file, then line.
// Throws TaskError for a missing path or a file in no known kernel language.
std::vector<DetectedKernel> detect_kernels(const std::filesystem::path& file_or_folder);
std::vector<DetectedKernel> detect_kernels_in_source(std::string_view source, Language language,
                                                     const std::filesystem::path& file);
// From the language table (languages.h): content markers first, in table order, then the
// extensions each row claims. So .cu/.cuh -> Cuda (Hip when it includes hip/hip_runtime.h),
// .hip -> Hip, .cl -> OpenCL, .py -> Triton when it imports triton (PyTorch when it imports
// only torch); other C++ extensions -> Hip when they include hip/hip_runtime.h. nullopt otherwise.
std::optional<Language> language_for_file(const std::filesystem::path& file, std::string_view source);
// Whether a Python source defines `def name(` at top level (column 0): launchers and input
// builders of Triton tasks are plain module-level functions.
bool defines_python_function(std::string_view source, const std::string& name);

}  // namespace kforge
