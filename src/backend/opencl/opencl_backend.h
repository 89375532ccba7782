// The OpenCL backend: clBuildProgram in the orchestrator, program binaries run in the worker.
#pragma once

#include <memory>

#include "backend/backend.h"

namespace kforge {

std::unique_ptr<Backend> make_opencl_backend();

}  // namespace kforge
