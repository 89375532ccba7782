#!/usr/bin/env bash
# On the GPU machine: the GPU test subset and the core benchmarks of docs/BENCHMARKS.md.
# Results go to $OUT (JSON) and a summary table is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
kforge doctor
echo "== GPU tests"
# By path: death tests re-run the binary from argv[0].
"$root/.gpu/bin/test_backend" > "$OUT/test_backend.log" 2>&1; grep -E "FAILED|PASSED|Failure" "$OUT/test_backend.log" | tail -8
"$root/.gpu/bin/test_eval" --gtest_filter='*Cuda*' > "$OUT/test_eval.log" 2>&1; grep -E "FAILED|PASSED|Failure" "$OUT/test_eval.log" | tail -12
echo "== where the time of one vector_add evaluation goes"
KFORGE_TRACE=1 kforge bench examples/vector_add/cuda 2>&1 | grep -E "trace|latency"
echo "== NVRTC compile time (cold cache) and evaluate time per example"
for dir in examples/*/cuda; do
  name=$(basename "$(dirname "$dir")")
  start=$EPOCHREALTIME
  KFORGE_NO_COMPILE_CACHE=1 kforge bench "$dir" --json > "$OUT/bench_$name.json" 2>"$OUT/bench_$name.err"
  echo "$name wall $(awk "BEGIN{print $EPOCHREALTIME - $start}") s"
done
echo "== full evaluate time of vector_add (compile cached, fresh worker)"
for i in 1 2 3; do
  start=$EPOCHREALTIME; kforge bench examples/vector_add/cuda >/dev/null 2>&1
  echo "evaluate_wall_s $(awk "BEGIN{print $EPOCHREALTIME - $start}")"
done | tee "$OUT/evaluate_time.txt"
echo "== repeat-measurement spread of vector_add, 5 runs"
for i in 1 2 3 4 5; do kforge bench examples/vector_add/cuda --json 2>/dev/null; done > "$OUT/repeat.jsonl"
python3 scripts/gpu_summary.py "$OUT"
tar czf "$RESULTS/gpu_check.tgz" -C "$OUT" .
