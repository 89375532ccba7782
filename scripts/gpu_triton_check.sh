#!/usr/bin/env bash
# GPU checks of the Python worker, printed as Markdown:
#   1. the planted Python cheats (tests/kernels/cheats_python/) on CUDA: each must be incorrect;
#   2. `kforge optimize` of each Triton example (GPU sizes) with the built-in search only:
#      original launcher vs best found (verified), and the PyTorch eager / torch.compile
#      baselines of its reference.
# Needs a CUDA GPU and a Python with torch and triton (KFORGE_PYTHON, else python3).
# Usage: scripts/gpu_triton_check.sh [BUILD_BIN_DIR] [GENERATIONS] [POPULATION]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build/bin}
GENERATIONS=${2:-3}
POPULATION=${3:-6}
export KFORGE_PYTHON=${KFORGE_PYTHON:-$(command -v python3)}
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

json() {  # json FILE PYTHON_EXPRESSION_OVER_r (r: the first object of the file's array)
  "$KFORGE_PYTHON" -c "import json,sys; r=json.load(open(sys.argv[1]))[0]; print($2)" "$1"
}

echo "## Planted Python cheats on $("$KFORGE_PYTHON" -c 'import torch; print(torch.cuda.get_device_name(0))')"
echo
echo "| cheat | status | message |"
echo "| --- | --- | --- |"
for cheat in tests/kernels/cheats_python/*.py; do
  name=$(basename "$cheat" .py)
  case "$name" in
    patched_reference|memoized_model) task=examples/kernelbench/bias_gelu.py ;;
    *) task=examples/triton/vector_add/kforge.toml ;;
  esac
  "$BIN/kforge" bench "$task" --source "$cheat" --json > "$SCRATCH/cheat.json" 2> "$SCRATCH/err" || true
  if [[ -s "$SCRATCH/cheat.json" ]]; then
    json "$SCRATCH/cheat.json" "'| $name | {} | {} |'.format(r['status'], r['message'][:150].replace('|', '/'))"
  else
    echo "| $name | failed | $(tail -1 "$SCRATCH/err") |"
  fi
done

echo
echo "## Triton examples: built-in search ($GENERATIONS generations x $POPULATION), no LLM"
echo
echo "| task | original ms | best ms (verified) | speedup | best parameters | PyTorch eager ms | torch.compile ms | wall s |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for manifest in examples/triton/*/kforge.toml; do
  start=$(date +%s)
  "$BIN/kforge" optimize "$manifest" --llm none -g "$GENERATIONS" -p "$POPULATION" --seed 1 \
    --runs-dir "$SCRATCH/runs" --json > "$SCRATCH/opt.json" 2> "$SCRATCH/opt.err" || true
  wall=$(( $(date +%s) - start ))
  if [[ -s "$SCRATCH/opt.json" ]]; then
    json "$SCRATCH/opt.json" "'| {} | {:.4f} | {:.4f} | {:.2f}x | {} | {} | {} | $wall |'.format(r['task'], r['sizes'][0]['baseline_ms'], r['sizes'][0]['best_ms'], r['speedup'], r.get('strategy', ''), '{:.4f}'.format(r['baselines']['eager_ms']) if 'eager_ms' in (r.get('baselines') or {}) else (r.get('baselines') or {}).get('error', 'n/a'), '{:.4f}'.format(r['baselines']['compile_ms']) if 'compile_ms' in (r.get('baselines') or {}) else 'n/a')"
  else
    echo "| $manifest | failed: $(grep -m1 -i error "$SCRATCH/opt.err" || tail -1 "$SCRATCH/opt.err") | | | | | | $wall |"
  fi
done
