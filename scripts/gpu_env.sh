# Sourced on the GPU machine: use the binaries and libraries carried in .gpu/.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export LD_LIBRARY_PATH=$root/.gpu/lib:${LD_LIBRARY_PATH:-}
export KFORGE_CACHE_DIR=${KFORGE_CACHE_DIR:-/tmp/kforge-cache}
export KFORGE_WORKER=$root/.gpu/bin/kforge-worker
export PATH=$root/.gpu/bin:$PATH
# Work files go to a scratch folder: the device tool brings back at most 8 files from $OUT,
# so scripts copy only their logs and one tarball there.
RESULTS=${OUT:-/tmp/kforge-out}
OUT=/tmp/kforge-work
mkdir -p "$OUT" "$RESULTS"
