#!/usr/bin/env bash
# On the GPU machine: search quality. For each example, the exhaustive optimum of the tunable
# space (kforge sweep) against what `kforge optimize` finds with a quarter of the space's
# evaluations, and against random search with the same budget (resampled from the sweep).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu_env.sh
examples=${EXAMPLES:-"vector_add matrix_transpose histogram"}
for ex in $examples; do
  task=examples/$ex/cuda
  kforge sweep "$task" --json --seeds 1 --max-seconds 0.3 > "$OUT/sweep_$ex.json" 2>/dev/null
  size=$(python3 -c "import json,sys; print(len(json.load(open('$OUT/sweep_$ex.json'))[0]['configurations']))")
  population=$(( (size / 4 + 2) / 3 ))   # 3 generations x population ~= 25% of the space
  kforge optimize "$task" --generations 3 --population "$population" --seed 1 --seeds 1 --max-seconds 0.3 \
    --runs-dir /tmp/kforge-runs --json > "$OUT/optimize_$ex.json" 2>"$OUT/optimize_$ex.log"
done
python3 - "$OUT" $examples <<'PY'
import json, random, statistics, sys
out, examples = sys.argv[1], sys.argv[2:]
print("| example | configs | evaluations (25%) | exhaustive best | found by optimize | found / best | random search (same budget, mean) | time outside compile+measure |")
print("|---|---|---|---|---|---|---|---|")
for ex in examples:
    sweep = json.load(open(f"{out}/sweep_{ex}.json"))[0]["configurations"]
    speedups = [c["speedup"] for c in sweep if c.get("median_ms")]
    best = max(speedups)
    summary = json.load(open(f"{out}/optimize_{ex}.json"))[0]
    evaluations = summary["candidates"] - 1
    found = summary["speedup"]
    rng = random.Random(7)
    budget = min(evaluations, len(speedups))
    random_best = statistics.mean(max(rng.sample(speedups, budget)) for _ in range(2000))
    overhead = 1 - (summary["compile_s"] + summary["evaluate_s"]) / summary["total_s"]
    print(f"| {ex} | {len(sweep)} | {evaluations} | {best:.2f}x | {found:.2f}x (search {summary['search_speedup']:.2f}x) | "
          f"{100 * found / best:.0f}% | {random_best:.2f}x ({100 * random_best / best:.0f}%) | {100 * overhead:.1f}% |")
sweep = json.load(open(f"{out}/sweep_vector_add.json"))[0] if "vector_add" in examples else None
if sweep:
    best = max((c for c in sweep["configurations"] if c.get("median_ms")), key=lambda c: c["gbps"])
    print(f"\nbest vector_add configuration {best['config']}: {best['gbps']:.0f} GB/s = "
          f"{100 * best['gbps'] / sweep['copy_gbps']:.1f}% of the measured copy bandwidth {sweep['copy_gbps']:.0f} GB/s")
PY
tar czf "$RESULTS/search_bench.tgz" -C "$OUT" .
