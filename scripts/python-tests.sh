#!/usr/bin/env bash
# ctest's python_worker entry: the Triton (interpreter mode) and KernelBench-format tests in
# tests/python, run with the venv made by scripts/python-deps.sh. Without that venv the test
# is skipped (exit 77, ctest's SKIP_RETURN_CODE) and says why.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:?usage: python-tests.sh BUILD_BIN_DIR}
if [[ ! -x .venv/bin/python ]] || ! .venv/bin/python -c "import torch, triton, pytest" 2>/dev/null; then
  echo "SKIPPED: no .venv with torch, triton and pytest; run scripts/python-deps.sh"
  exit 77
fi
KFORGE_BIN="$BIN" exec .venv/bin/python -m pytest -q tests/python
