// The shared entry points of kernel detection (detect.h): which language a file is in, read
// from the language table (task/languages.h), and the kernels in a source, found by the
// detector of the language's family (detect_c.cpp, detect_python.cpp).
#include "task/detect.h"

#include <algorithm>
#include <cctype>

#include "task/c_tokenizer.h"
#include "task/detect_families.h"
#include "task/manifest_search.h"
#include "util/files.h"

namespace kforge {
namespace {

std::string lowercase_extension(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

bool contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

}  // namespace

std::optional<Language> language_for_file(const std::filesystem::path& file, std::string_view source) {
  const std::string ext = lowercase_extension(file);
  // Content markers decide first, in table order (HIP in a .cu, Triton before PyTorch in a
  // .py); the source is tokenized at most once per syntax family.
  std::optional<std::vector<Token>> c_tokens;
  std::optional<std::vector<Token>> py_tokens;
  for (const auto& row : all_languages()) {
    if (!row.content_marker || !contains(row.content_marker->extensions, ext)) continue;
    if (row.syntax == SyntaxFamily::CLike) {
      if (!c_tokens) c_tokens = tokenize_c(source);
      if (includes_header(*c_tokens, row.content_marker->marker)) return row.language;
    } else {
      if (!py_tokens) py_tokens = python_tokens(source);
      if (python_imports(*py_tokens, row.content_marker->marker)) return row.language;
    }
  }
  for (const auto& row : all_languages())
    if (contains(row.extensions, ext)) return row.language;
  return std::nullopt;
}

std::vector<DetectedKernel> detect_kernels_in_source(std::string_view source, Language language,
                                                     const std::filesystem::path& file) {
  switch (language_facts(language).entry_points) {
    case EntryPointStyle::TritonJit:
      return detect_jit_kernels(source, language, file);
    case EntryPointStyle::KernelBenchModel:
      return detect_kernelbench_model(source, language, file);
    case EntryPointStyle::QualifiedFunction:
      break;
  }
  return detect_c_kernels(source, language, file);
}

std::vector<DetectedKernel> detect_kernels(const std::filesystem::path& file_or_folder) {
  namespace fs = std::filesystem;
  if (!fs::exists(file_or_folder))
    throw TaskError(file_or_folder.string() + ": no such file or folder; pass a kernel source or a folder of them");
  std::vector<DetectedKernel> kernels;
  auto scan = [&](const fs::path& file, bool must_be_kernel_source) {
    std::string source = read_file(file);
    auto language = language_for_file(file, source);
    if (!language && must_be_kernel_source)
      throw TaskError(file.string() + ": not a kernel source; use .cu .cuh .hip .cl or a .py that imports triton");
    if (!language) return;
    auto found = detect_kernels_in_source(source, *language, file);
    kernels.insert(kernels.end(), found.begin(), found.end());
  };
  if (!fs::is_directory(file_or_folder)) {
    scan(file_or_folder, true);
    return kernels;
  }
  for (auto it = fs::recursive_directory_iterator(file_or_folder); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && skipped_when_scanning(it->path())) {
      it.disable_recursion_pending();
    } else if (it->is_regular_file()) {
      scan(it->path(), false);
    }
  }
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const auto& a, const auto& b) { return std::tie(a.file, a.line) < std::tie(b.file, b.line); });
  return kernels;
}

}  // namespace kforge
