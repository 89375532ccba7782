#pragma once

#include <memory>

#include "backend/backend.h"

namespace kforge::opencl {

// Opens list_devices()[index] with its own context and a profiling-enabled in-order queue.
std::unique_ptr<Device> open_device(int index);

}  // namespace kforge::opencl
