#!/usr/bin/env bash
# On the GPU machine: the verification defences of docs/RELIABILITY.md (planted CUDA cheats and
# faults, the final-verification and sandbox tests that run the real binaries) and what the
# timing-phase checks cost per evaluation. Logs go to $OUT; a short summary is printed.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu_env.sh
# The test binaries look for the repository and the binaries where they were built.
[ -e /work/main ] || { mkdir -p /work && ln -s "$root" /work/main; }
mkdir -p "$root/build" && ln -sfn "$root/.gpu/bin" "$root/build/bin"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
kforge doctor
run_tests() {  # binary filter: by path, so death tests can re-run argv[0]
  local name=$1; shift
  "$root/.gpu/bin/$name" "$@" > "$OUT/$name.log" 2>&1
  echo "$name $*: $(grep -cE '^\[       OK' "$OUT/$name.log") ok, $(grep -cE '^\[  FAILED  \] [A-Z]' "$OUT/$name.log") failed, $(grep -cE '^\[  SKIPPED' "$OUT/$name.log") skipped"
  grep -E '^\[  FAILED  \] [A-Z]' "$OUT/$name.log" | sort -u | head -20
}
echo "== planted cheats and faults on CUDA"
run_tests test_eval --gtest_filter='*Cuda*:*Cheat*:*Timing*:*Sandbox*:*Final*'
run_tests test_backend
run_tests test_worker
run_tests test_protocol
run_tests test_cli --gtest_filter='Final*'
echo "== Python judge/runner isolation with CUDA"
[ -f scripts/gpu_python_isolation.py ] && OPENAI_API_KEY=sk-kforge-planted-1 timeout 240 python3 scripts/gpu_python_isolation.py > "$OUT/python_isolation.log" 2>&1; tail -15 "$OUT/python_isolation.log"
echo "== cost of an evaluation with the timing-phase checks (vector_add, sgemm), 3 runs each"
for ex in vector_add sgemm row_softmax sum_reduction; do
  for i in 1 2 3; do
    start=$EPOCHREALTIME
    kforge bench examples/$ex/cuda --json > "$OUT/bench_$ex.$i.json" 2>"$OUT/bench_$ex.$i.err"
    echo "$ex run $i: $(awk "BEGIN{print $EPOCHREALTIME - $start}") s; $(grep -oE '"(median_ms|gbps|gflops|status)": [^,]*' "$OUT/bench_$ex.$i.json" | head -4 | tr '\n' ' ')"
  done
done
KFORGE_TRACE=1 kforge bench examples/vector_add/cuda > "$OUT/trace_vector_add.log" 2>&1
grep -E "trace" "$OUT/trace_vector_add.log" | tail -25
echo "== optimize on vector_add (built-in search, -g 2 -p 6)"
kforge optimize examples/vector_add/cuda -g 2 -p 6 --seed 5 --runs-dir /tmp/kforge-runs 2>&1 | tail -12
if [ -n "${KFORGE_SWEEP_PROBE:-}" ]; then  # how long a sweep takes per configuration here
  echo "== sweep probe: sgemm, 40 configurations"
  start=$EPOCHREALTIME
  kforge sweep examples/sgemm/cuda --limit 40 --seeds 1 --max-seconds 0.1 --json > "$OUT/sweep_probe.json" 2>"$OUT/sweep_probe.err"
  echo "sweep probe: $(awk "BEGIN{print $EPOCHREALTIME - $start}") s for 40; exit $?"
fi
tar czf "$RESULTS/gpu_verify.tgz" -C "$OUT" .
