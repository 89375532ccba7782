#!/usr/bin/env bash
# One command from a fresh machine to an optimised kernel: installs, builds, and runs
# `kforge optimize` on a bundled example: CUDA when a GPU is present, else OpenCL on PoCL.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
kforge=build/bin/kforge
$kforge doctor || true
if $kforge doctor 2>/dev/null | grep -q '^cuda .*usable'; then
  example=examples/vector_add/cuda
else
  example=examples/vector_add/opencl
fi
exec $kforge optimize "$example" --generations "${GENERATIONS:-4}" --population "${POPULATION:-6}" "$@"
