// The two families of kernel detection behind detect.h's shared entry points: C-like sources
// (detect_c.cpp) and Python sources (detect_python.cpp). Internal to src/task.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "task/c_tokenizer.h"
#include "task/detect.h"

namespace kforge {

// C-like: kernels declared with one of the language's kernel_qualifiers.
std::vector<DetectedKernel> detect_c_kernels(std::string_view source, Language language,
                                             const std::filesystem::path& file);
// Whether an #include directive among `tokens` (tokenize_c) names `header`.
bool includes_header(const std::vector<Token>& tokens, const std::string& header);

// Python: tokens of the Python lexer (NEWLINE tokens have kind Directive).
std::vector<Token> python_tokens(std::string_view source);
// Whether `import X` / `from X import` names the module `root` (or one of its submodules).
bool python_imports(const std::vector<Token>& tokens, const std::string& root);
// Functions decorated @triton.jit.
std::vector<DetectedKernel> detect_jit_kernels(std::string_view source, Language language,
                                               const std::filesystem::path& file);
// A KernelBench problem is one "kernel": its Model, whose inputs come from get_inputs().
std::vector<DetectedKernel> detect_kernelbench_model(std::string_view source, Language language,
                                                     const std::filesystem::path& file);

}  // namespace kforge
