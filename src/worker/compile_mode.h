// `kforge-worker --compile-only`: the sandboxed compiler. It opens no device; it answers
// `compile` requests (backend/compile_protocol.h) with Backend::compile_uncached, so a
// compiler that crashes, hangs or eats memory on generated source costs this process, which
// the orchestrator replaces, never the orchestrator. The toolchain is initialised once at
// start-up (OpenCL platform and device), so each compile pays only the compile itself.
#pragma once

#include <cstdio>

#include "task/task.h"

namespace kforge {

// Serves requests from stdin until EOF or {"op":"exit"}; replies on `out`. Returns the exit code.
int run_compile_worker(Language language, int device_index, std::FILE* out);

}  // namespace kforge
