#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in their own build dir and runs each
# on its seed corpus for a while. Any crash, leak, sanitizer report or hang fails the script;
# the reproducer lands in build-fuzz/artifacts/.
#   scripts/fuzz.sh [SECONDS_PER_FUZZER] [FUZZER...]   (default 10 s; all four fuzzers)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
shift || true
fuzzers=("$@")
[[ ${#fuzzers[@]} -gt 0 ]] || fuzzers=(manifest detect reply_parser ncu_csv)
build="${KFORGE_FUZZ_BUILD_DIR:-build-fuzz}"

if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: clang++ not found (scripts/install-deps.sh with KFORGE_WITH_TEST_TOOLS=1 installs it)" >&2
  exit 2
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
CC=clang CXX=clang++ cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DKFORGE_BUILD_FUZZERS=ON -DKFORGE_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --parallel "${KFORGE_FUZZ_JOBS:-2}" --target "${fuzzers[@]/%/_fuzzer}"

mkdir -p "$build/artifacts"
status=0
for name in "${fuzzers[@]}"; do
  corpus="fuzz/corpus/$name"
  work="$build/corpus/$name"  # new inputs go here, the committed seeds stay as they are
  mkdir -p "$work" "$corpus"
  # Seeds the repository already holds are read in place (libFuzzer reads folders recursively),
  # so the corpus folders keep only inputs written for fuzzing.
  case "$name" in
    detect | manifest) seeds=(examples tests/kernels) ;;
    ncu_csv) seeds=(tests/profile/data) ;;
    *) seeds=() ;;
  esac
  echo "== $name: ${seconds}s on $corpus ${seeds[*]}"
  if ! UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
       "$build/fuzz/${name}_fuzzer" "$work" "$corpus" "${seeds[@]}" -max_total_time="$seconds" -timeout=10 \
       -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
       -artifact_prefix="$build/artifacts/${name}-" 2>"$build/${name}.log"; then
    echo "!! $name failed; see $build/${name}.log and $build/artifacts/" >&2
    tail -40 "$build/${name}.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$build/${name}.log" | tr '\n' ' '
    echo
  fi
done
exit $status
