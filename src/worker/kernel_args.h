// Turns a resolved launch plan (protocol/plan.h) into host buffers, device buffers and kernel
// arguments: the worker's side of one launch configuration.
#pragma once

#include <vector>

#include "backend/backend.h"
#include "protocol/plan.h"
#include "worker/host_buffer.h"

namespace kforge {

// Device-side state of one launch configuration: a buffer per buffer argument.
struct ArgBinding {
  std::vector<BufferId> buffers;  // parallel to task.args; -1 for scalars
  std::vector<KernelArg> args;    // what the kernel receives
};

// Host buffers of every buffer argument, sized by `launch`; inputs and inouts filled from
// their init distributions with seeds derived from `seed`, outputs poisoned.
std::vector<HostBuffer> make_host_args(const TaskPlan& task, const LaunchPlan& launch, std::uint64_t seed);
// The same with the distribution of every input/inout given (parallel to task.args; a check
// draw, see protocol/check_inputs.h); the seeds per argument are those of the overload above.
std::vector<HostBuffer> make_host_args(const TaskPlan& task, const LaunchPlan& launch, std::uint64_t seed,
                                       const std::vector<std::string>& distributions);
// Allocates and uploads device buffers for `host` (must come from make_host_args); scalars
// take their values from `launch`.
ArgBinding bind_args(Device& device, const TaskPlan& task, const LaunchPlan& launch,
                     const std::vector<HostBuffer>& host);
void release_args(Device& device, const ArgBinding& binding);

}  // namespace kforge
