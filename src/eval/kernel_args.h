// Turns a task's argument list into device buffers and kernel arguments for one problem size.
#pragma once

#include <vector>

#include "backend/backend.h"
#include "eval/host_buffer.h"
#include "task/task.h"

namespace kforge {

// Device-side state of one launch configuration: a buffer per buffer argument.
struct ArgBinding {
  std::vector<BufferId> buffers;  // parallel to task.args; -1 for scalars
  std::vector<KernelArg> args;    // what the kernel receives
};

// Host buffers of every buffer argument, sized for `bindings`; inputs and inouts filled from
// their distributions with seeds derived from `seed`, outputs poisoned.
std::vector<HostBuffer> make_host_args(const Task& task, const Bindings& bindings, std::uint64_t seed);
// The same with the distribution of every input/inout given (parallel to task.args; a check
// draw, see check_inputs.h); the seeds per argument are those of the overload above.
std::vector<HostBuffer> make_host_args(const Task& task, const Bindings& bindings, std::uint64_t seed,
                                       const std::vector<std::string>& distributions);
// Allocates and uploads device buffers for `host` (must come from make_host_args).
ArgBinding bind_args(Device& device, const Task& task, const Bindings& bindings,
                     const std::vector<HostBuffer>& host);
void release_args(Device& device, const ArgBinding& binding);
LaunchDims launch_dims(const Task& task, const Bindings& bindings);

}  // namespace kforge
