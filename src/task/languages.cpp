// The table of language facts (languages.h): one row per language.
#include "task/languages.h"

#include <stdexcept>

namespace kforge {
namespace {

// C++ header extensions a HIP source may use besides .hip; they are HIP only when the file
// includes the HIP runtime.
const std::vector<std::string> kHipMarkedExtensions{".cu", ".cuh", ".cpp", ".cc", ".cxx", ".h", ".hpp"};

std::vector<LanguageFacts> make_table() {
  std::vector<LanguageFacts> rows;

  LanguageFacts cuda;
  cuda.language = Language::Cuda;
  cuda.id = "cuda";
  cuda.display_name = "CUDA";
  cuda.extensions = {".cu", ".cuh"};
  cuda.source_extension = ".cu";
  cuda.kernel_qualifiers = {"__global__"};
  cuda.code_fence = "cuda";
  cuda.restrict_qualifier = "__restrict__";
  cuda.tuning_options = {"--maxrregcount=32", "--maxrregcount=64", "--maxrregcount=128", "--maxrregcount=255",
                         "--extra-device-vectorization"};
  cuda.fast_math_option = "--use_fast_math";
  cuda.profiler = HardwareProfiler::Ncu;
  rows.push_back(std::move(cuda));

  LanguageFacts opencl;
  opencl.language = Language::OpenCL;
  opencl.id = "opencl";
  opencl.display_name = "OpenCL";
  opencl.extensions = {".cl"};
  opencl.source_extension = ".cl";
  opencl.kernel_qualifiers = {"__kernel", "kernel"};
  opencl.code_fence = "opencl";
  opencl.restrict_qualifier = "restrict";
  opencl.tuning_options = {"-cl-mad-enable", "-cl-no-signed-zeros"};
  opencl.fast_math_option = "-cl-fast-relaxed-math";
  opencl.worker_memory_limit_bytes = std::int64_t{16} << 30;
  opencl.no_profiler_reason = "no hardware counters for OpenCL on this device";
  rows.push_back(std::move(opencl));

  LanguageFacts hip;
  hip.language = Language::Hip;
  hip.id = "hip";
  hip.display_name = "HIP";
  hip.extensions = {".hip"};
  hip.content_marker = ContentMarker{kHipMarkedExtensions, "hip/hip_runtime.h"};
  hip.source_extension = ".hip";
  hip.kernel_qualifiers = {"__global__"};
  hip.code_fence = "cpp";
  hip.restrict_qualifier = "__restrict__";
  hip.profiler = HardwareProfiler::Rocprofv3;
  rows.push_back(std::move(hip));

  LanguageFacts triton;
  triton.language = Language::Triton;
  triton.id = "triton";
  triton.display_name = "Triton";
  triton.syntax = SyntaxFamily::Python;
  triton.content_marker = ContentMarker{{".py"}, "triton"};
  triton.source_extension = ".py";
  triton.entry_points = EntryPointStyle::TritonJit;
  triton.takes_launcher = true;
  triton.block_is_launch_dimension = false;
  triton.typed_parameters = false;
  triton.code_fence = "python";
  triton.worker = WorkerKind::Python;
  triton.no_profiler_reason = "no hardware profiler for triton";
  triton.pytorch_baselines = PyTorchBaselines::OfTheReference;
  rows.push_back(std::move(triton));

  // After Triton: a Triton file usually imports torch too.
  LanguageFacts pytorch;
  pytorch.language = Language::PyTorch;
  pytorch.id = "pytorch";
  pytorch.display_name = "PyTorch";
  pytorch.syntax = SyntaxFamily::Python;
  pytorch.content_marker = ContentMarker{{".py"}, "torch"};
  pytorch.source_extension = ".py";
  pytorch.entry_points = EntryPointStyle::KernelBenchModel;
  pytorch.can_be_task = false;
  pytorch.typed_parameters = false;
  pytorch.code_fence = "python";
  pytorch.worker = WorkerKind::Python;
  pytorch.no_profiler_reason = "no hardware profiler for pytorch";
  pytorch.pytorch_baselines = PyTorchBaselines::OfTheModel;
  rows.push_back(std::move(pytorch));

  return rows;
}

}  // namespace

const std::vector<LanguageFacts>& all_languages() {
  static const std::vector<LanguageFacts> table = make_table();
  return table;
}

const LanguageFacts& language_facts(Language language) {
  for (const auto& row : all_languages())
    if (row.language == language) return row;
  throw std::logic_error("language " + std::to_string(static_cast<int>(language)) + " has no row in task/languages.cpp");
}

std::optional<Language> language_with_id(std::string_view id) {
  for (const auto& row : all_languages())
    if (row.id == id) return row.language;
  return std::nullopt;
}

std::string to_string(Language language) { return language_facts(language).id; }

std::optional<Language> parse_language(const std::string& text) { return language_with_id(text); }

std::string language_ids(std::string_view separator) {
  std::string ids;
  for (const auto& row : all_languages()) ids += (ids.empty() ? "" : std::string(separator)) + row.id;
  return ids;
}

}  // namespace kforge
