#!/usr/bin/env bash
# Installs kforge's build and test dependencies from Debian's packages (run as root).
# Packages already present are skipped, so a second run costs a few seconds.
set -euo pipefail
packages=(
  build-essential cmake ninja-build ccache pkg-config git
  nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libfmt-dev
  libsqlite3-dev libsqlitecpp-dev libcurl4-openssl-dev libcpp-httplib-dev libxxhash-dev
  libgtest-dev libgmock-dev
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
)
if [[ "${KFORGE_WITH_TEST_TOOLS:-0}" == 1 ]]; then
  packages+=(chromium clang libclang-rt-14-dev python3-venv)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "kforge: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
