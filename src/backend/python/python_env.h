// Where the Python side of kforge lives: the interpreter that runs Triton and PyTorch tasks
// and the Python worker script (python/kforge_worker.py) that plays kforge-worker's part.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "task/task.h"

namespace kforge {

// Triton and PyTorch tasks run in Python rather than through a native backend.
bool is_python_language(Language language);

// $KFORGE_PYTHON, else the repository's .venv (made by scripts/python-deps.sh), else python3.
std::filesystem::path python_interpreter();

// $KFORGE_PYTHON_DIR, else the python/ folder of the checkout the running binary was built in
// (found by walking up from the executable), else empty.
std::filesystem::path python_dir();

// argv of the Python worker: interpreter, script, --backend LANGUAGE --device N.
std::vector<std::string> python_worker_command(Language language, int device_index);

}  // namespace kforge
