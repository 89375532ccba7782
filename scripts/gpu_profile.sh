#!/usr/bin/env bash
# Profiles three CUDA examples with Nsight Compute on a GPU machine and measures what
# profiling costs per candidate. Builds nothing: run it where bin/kforge and bin/kforge-worker
# are already built (or carried). Prints a Markdown table for docs/BENCHMARKS.md; the full
# profiles (JSON and text) land in $OUT (default /tmp/gpu_profile).
#   scripts/gpu_profile.sh [BUILD_DIR]      (default: build-profile)
set -euo pipefail
build=${1:-build-profile}
kforge="$build/bin/kforge"
out=${OUT:-/tmp}/gpu_profile
mkdir -p "$out"
rm -f "$out/walls.txt"
export KFORGE_CACHE_DIR=${KFORGE_CACHE_DIR:-$out/cache}
examples=(vector_add sgemm row_softmax)

now() { date +%s.%N; }

echo "ncu: $(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || echo 'not found')"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
# Characterise the device once (copy bandwidth, FMA probe) so no example pays for it.
"$kforge" -q profile examples/vector_add/cuda --no-counters > "$out/warmup.txt"

for ex in "${examples[@]}"; do
  task="examples/$ex/cuda"
  t0=$(now); "$kforge" -q profile "$task" --no-counters --json > "$out/$ex.analytic.json"
  t1=$(now); "$kforge" -q profile "$task" --json > "$out/$ex.ncu.json"
  t2=$(now); "$kforge" profile "$task" > "$out/$ex.txt" 2>&1 || true
  echo "$ex $t0 $t1 $t2" >> "$out/walls.txt"
done

python3 - "$out" "${examples[@]}" <<'PY'
import json, sys
out, examples = sys.argv[1], sys.argv[2:]
walls = {}
for line in open(f"{out}/walls.txt"):
    name, t0, t1, t2 = line.split()
    walls[name] = (float(t1) - float(t0), float(t2) - float(t1))
def pct(p, k):
    v = p.get(k) if k != "occupancy" else p.get("occupancy", {}).get("achieved_pct")
    return "-" if v is None else f"{v:.0f}%"
print("| example | source | bound | FLOP/B | GB/s (% copy) | GFLOP/s (% FP32) | SM | DRAM | occupancy | ncu s | extra wall s |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for ex in examples:
    entry = json.load(open(f"{out}/{ex}.ncu.json"))[0]
    p = entry["profile"]
    analytic_wall, ncu_wall = walls[ex]
    print(f"| {ex} | {p['source']} | {p['bound']} | {p['arithmetic_intensity']:.3g} | "
          f"{p['achieved_gbps']:.0f} ({p['bandwidth_pct']:.0f}%) | {p['achieved_gflops']:.0f} ({p['compute_pct']:.1f}%) | "
          f"{pct(p, 'sm_throughput_pct')} | {pct(p, 'dram_throughput_pct')} | {pct(p, 'occupancy')} | "
          f"{p['metrics'].get('profiler_seconds', 0):.2f} | {ncu_wall - analytic_wall:.2f} |")
    if p["source"] != "ncu":
        print(f"<!-- {ex}: no counters: {p['source_note']} -->")
d = json.load(open(f"{out}/{examples[0]}.ncu.json"))[0]["device"]
print(f"\nDevice: {d['name']}, copy {d['copy_gbps']:.0f} GB/s, FP32 {d['fp32_gflops']:.0f} GFLOP/s ({d['fp32_source']}).")
print("ncu s: wall time of the ncu run plus report import per candidate; extra wall s: `kforge profile` with ncu minus without.")
PY
