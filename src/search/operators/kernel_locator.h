// Finds a kernel's definition in C-family source (CUDA, HIP, OpenCL) by tokens, so that source
// transforms edit the real signature and body and never text inside comments or strings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "task/c_tokenizer.h"
#include "task/task.h"

namespace kforge {

struct KernelLocation {
  std::vector<Token> tokens;      // the whole source
  std::size_t name = 0;           // index of the kernel's name
  std::size_t params_open = 0;    // index of '(' opening the parameter list
  std::size_t params_close = 0;   // index of its ')'
  std::size_t body_open = 0;      // index of '{' opening the body
  std::size_t body_close = 0;     // index of its '}'
};

// The definition of `kernel` (template arguments such as "<float>" ignored), written directly
// with its kernel marker (__global__, __kernel or kernel); nullopt when there is none, e.g.
// when a macro produces the declaration.
std::optional<KernelLocation> locate_kernel(const std::string& source, Language language, const std::string& kernel);

// Index of the bracket closing the ( { or [ at `open`, counting only that kind of bracket (in
// code a '<' is usually a comparison, not a bracket); tokens.size() when it is unbalanced.
std::size_t matching_close(const std::vector<Token>& tokens, std::size_t open);

// Whether the language's kernels are C-family code the transforms understand.
bool is_c_family(Language language);

// Entry point a variant compiles: its own override, else the task's.
std::string entry_point(const Task& task, const std::string& variant_kernel);

}  // namespace kforge
