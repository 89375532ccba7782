// Manifest limits that depend on the machine: every size's buffers must fit the device (a
// check holds the reference's and the candidate's buffers at once) and the worker's memory
// limit (inputs, expected and actual outputs on the host). Checked once per task before
// anything runs, so a size that cannot fit is a one-line manifest error, not a timeout or a
// crash of every candidate.
#pragma once

#include <cstdint>
#include <string>

#include "task/task.h"

namespace kforge {

inline constexpr int kDeviceCopies = 2;  // reference and candidate buffers during a check
inline constexpr int kHostCopies = 3;    // inputs, expected and actual outputs

// Throws TaskError naming the manifest, the size, the largest argument and the fix. A limit of
// 0 means unknown (not checked). `device_name` is only for the message.
void check_memory_limits(const Task& task, std::uint64_t device_bytes, std::uint64_t host_bytes,
                         const std::string& device_name);

}  // namespace kforge
