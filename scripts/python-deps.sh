#!/usr/bin/env bash
# Creates .venv with the pinned Python stack that the Triton and PyTorch (KernelBench) tasks
# need: torch, triton and numpy. Only PyPI is reachable from CI, and PyPI's Linux torch wheel
# is the CUDA build (its nvidia-* wheels come along); on a machine without a GPU it runs on
# the CPU, and Triton runs there in interpreter mode (TRITON_INTERPRET=1). The same venv
# serves the GPU machine. Re-running is cheap: pip skips what is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${KFORGE_PYTHON_BASE:-python3}
if [[ ! -x .venv/bin/python ]]; then
  "$PY" -m venv .venv
fi
# torch 2.5.1 pins triton 3.1.0 on Linux x86_64; pinning all keeps CI reproducible. numpy stays
# below 2: with numpy 2, the Triton 3.1 interpreter silently drops every tl.store.
.venv/bin/python -m pip install --quiet --disable-pip-version-check \
  torch==2.5.1 triton==3.1.0 numpy==1.26.4 pytest==8.3.3
.venv/bin/python -c "import torch, triton, numpy; print('python deps: torch', torch.__version__, 'triton', triton.__version__)"
