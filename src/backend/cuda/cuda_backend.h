// The CUDA backend: NVRTC compiles in the orchestrator, the driver API runs kernels in the
// worker. libcuda and libnvrtc are loaded at run time, so this header needs no CUDA headers.
#pragma once

#include <memory>
#include <string>

#include "backend/backend.h"

namespace kforge {

std::unique_ptr<Backend> make_cuda_backend();

// Why the CUDA driver library at `library` cannot be used, or "" if it can. Loads it apart
// from the process-wide driver, so tests can check stub detection against the toolkit's stub.
std::string cuda_driver_problem(const std::string& library);

}  // namespace kforge
