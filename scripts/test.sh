#!/usr/bin/env bash
# One command from a fresh machine to a full test run: installs (with the test tools:
# headless Chromium, clang for the fuzzers), builds, and runs every test with CTest.
# Tests that need a GPU skip themselves with the reason when there is none.
set -euo pipefail
cd "$(dirname "$0")/.."
KFORGE_WITH_TEST_TOOLS=1 scripts/install-deps.sh
scripts/build.sh
cd build
ctest --output-on-failure -j "${KFORGE_TEST_JOBS:-2}" "$@"
