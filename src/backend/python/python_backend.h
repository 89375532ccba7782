// Backend for Triton and PyTorch (KernelBench-format) tasks. The orchestrator side only checks
// syntax (python -m py_compile never runs the module); the source itself is the "binary",
// imported and launched by python/kforge_worker.py in the sandboxed worker process.
#pragma once

#include <memory>

#include "backend/backend.h"

namespace kforge {

std::unique_ptr<Backend> make_python_backend(Language language);

}  // namespace kforge
