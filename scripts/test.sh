#!/usr/bin/env bash
# One command from a fresh machine to a full test run: installs (with the test tools:
# headless Chromium, clang for the fuzzers), builds, and runs every test with CTest.
# Tests that need a GPU skip themselves with the reason when there is none.
set -euo pipefail
cd "$(dirname "$0")/.."
KFORGE_WITH_TEST_TOOLS=1 scripts/install-deps.sh
# .venv with pinned torch/triton for the Triton and KernelBench tests; without it (PyPI out of
# reach) ctest reports python_worker as skipped instead of failing the whole run.
scripts/python-deps.sh || echo "warning: scripts/python-deps.sh failed; the python_worker test will be skipped"
scripts/build.sh
cd build
ctest --output-on-failure -j "${KFORGE_TEST_JOBS:-2}" "$@"
# A short fuzz run of every untrusted-text parser (libFuzzer, clang from Debian); 0 skips it,
# scripts/fuzz.sh 300 runs longer.
if command -v clang++ >/dev/null && [[ "${KFORGE_FUZZ_SECONDS:-10}" != 0 ]]; then
  ../scripts/fuzz.sh "${KFORGE_FUZZ_SECONDS:-10}"
fi
