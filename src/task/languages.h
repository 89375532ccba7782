// The kernel languages kforge knows and every fact about each of them, in one table: detection,
// manifests, prompts, reports, the search's source transforms, the evaluator and the profiler
// read these facts instead of switching on the language. Adding a language (HIP next) is one
// new row here, plus a backend in src/backend/registry.cpp when it can run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kforge {

enum class Language { Cuda, OpenCL, Hip, Triton, PyTorch };

// How a source is read: by the C tokenizer (c_tokenizer.h) or the Python lexer.
enum class SyntaxFamily { CLike, Python };

// Which process runs a task's variants: kforge-worker or python/kforge_worker.py.
enum class WorkerKind { Native, Python };

// The hardware-counter profiler that applies to the language's kernels.
enum class HardwareProfiler { None, Ncu, Rocprofv3 };

// How a source declares its entry points.
enum class EntryPointStyle {
  QualifiedFunction,  // a C function carrying one of `kernel_qualifiers`
  TritonJit,          // a module-level def decorated @triton.jit
  KernelBenchModel,   // a KernelBench problem's class Model (candidates define ModelNew)
};

// Which PyTorch timings `kforge optimize` adds beside the search.
enum class PyTorchBaselines {
  None,
  OfTheModel,      // KernelBench: eager (the task's baseline) and torch.compile
  OfTheReference,  // Triton with a PyTorch [reference]: the reference eager and compiled
};

// Content that identifies the language in files with one of `extensions`: for C-like
// languages a header the source #includes, for Python a module it imports.
struct ContentMarker {
  std::vector<std::string> extensions;
  std::string marker;
};

struct LanguageFacts {
  Language language = Language::Cuda;
  std::string id;            // manifests' `language`, run targets, report.json, CLI: "cuda"
  std::string display_name;  // in sentences: "OpenCL"
  SyntaxFamily syntax = SyntaxFamily::CLike;

  // Detection (task/detect.h). A file whose lowercase extension is in `extensions` is this
  // language unless a content marker of another row claims it first; markers are tried in
  // table order. No extension appears in two rows' `extensions`.
  std::vector<std::string> extensions;
  std::optional<ContentMarker> content_marker;
  std::string source_extension;  // what a written source of it is named: best<.ext>
  EntryPointStyle entry_points = EntryPointStyle::QualifiedFunction;
  std::vector<std::string> kernel_qualifiers;  // QualifiedFunction: "__global__"

  // Manifests (task/task.h).
  bool can_be_task = true;  // false: only a [reference] (PyTorch)
  bool takes_launcher = false;  // [task] may name a Python launcher and input builder
  // The block size is a launch dimension ([launch] block); false: the kernel takes it as a
  // compile-time parameter and the language picks its own threads (Triton's tl.constexpr).
  bool block_is_launch_dimension = true;
  bool typed_parameters = true;  // a signature gives element types (C), or only names (Triton)

  // Search and prompts.
  std::string code_fence;          // Markdown code fence tag in prompts and reports
  std::string restrict_qualifier;  // the no-alias qualifier for pointer parameters; empty: none
  std::vector<std::string> tuning_options;  // compiler options the compiler-options operator tries
  std::string fast_math_option;             // tried too when the tolerances allow fast math

  // Evaluation and profiling.
  WorkerKind worker = WorkerKind::Native;
  // The run worker's address-space cap; nullopt: uncapped. OpenCL on the CPU shares our memory,
  // so a runaway kernel must fail alone; CUDA reserves huge virtual ranges and runs uncapped.
  std::optional<std::int64_t> worker_memory_limit_bytes;
  HardwareProfiler profiler = HardwareProfiler::None;
  std::string no_profiler_reason;  // shown when `profiler` is None
  PyTorchBaselines pytorch_baselines = PyTorchBaselines::None;
};

// Every language, one row each, in detection-priority order.
const std::vector<LanguageFacts>& all_languages();
const LanguageFacts& language_facts(Language language);
std::optional<Language> language_with_id(std::string_view id);

std::string to_string(Language language);  // the id
std::optional<Language> parse_language(const std::string& text);
// "cuda opencl hip triton pytorch": for messages that list the choices.
std::string language_ids(std::string_view separator = " ");

}  // namespace kforge
