// The one thing a model may not change: the entry kernel kforge launches. Its name and its
// parameter list must survive every rewrite, since kforge binds the arguments and launches it
// with the task's geometry.
#pragma once

#include <optional>
#include <string>

#include "task/detect.h"

namespace kforge {

// The entry kernel of `source`, or nullopt when the source does not define it.
std::optional<DetectedKernel> find_entry_kernel(const std::string& source, const Task& task);

// "vector_add(float* a, float* b, float* c, int n)".
std::string signature_text(const DetectedKernel& kernel);

// Why `source` cannot replace the kernel (no entry kernel of that name, a different number
// of parameters), or "" when it can.
std::string entry_kernel_problem(const std::string& source, const Task& task, std::size_t expected_params);

}  // namespace kforge
