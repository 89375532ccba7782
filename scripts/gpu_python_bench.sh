#!/usr/bin/env bash
# GPU measurements of the Python task kinds, printed as Markdown tables:
#   1. the Triton examples on CUDA through `kforge bench` (baseline parameters);
#   2. the KernelBench problems: eager Model vs torch.compile vs the raw-CUDA ModelNew in
#      examples/kernelbench/candidates/ (NVRTC through python/kforge_cuda.py), each checked
#      against Model and timed in one kforge worker session;
#   3. the compile time of one kernel through kforge_cuda (NVRTC, cold cache) vs
#      torch.utils.cpp_extension.load_inline (nvcc + host compiler, cold build folder).
# Needs a CUDA GPU and a Python with torch, triton and cuda-bindings (KFORGE_PYTHON, else
# .venv/bin/python, else python3). Usage: [SKIP_TRITON=1] scripts/gpu_python_bench.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
KFORGE="$BUILD/bin/kforge"
if [[ -z "${KFORGE_PYTHON:-}" ]]; then
  if [[ -x .venv/bin/python ]]; then KFORGE_PYTHON=$PWD/.venv/bin/python; else KFORGE_PYTHON=$(command -v python3); fi
fi
export KFORGE_PYTHON
[[ -x "$KFORGE" ]] || { echo "no $KFORGE: build first (scripts/build.sh)"; exit 1; }
"$KFORGE_PYTHON" -c "import torch; assert torch.cuda.is_available(), 'no CUDA device'" 
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

field() {  # field JSON_FILE PYTHON_EXPRESSION_OVER_r
  "$KFORGE_PYTHON" -c "import json,sys; r=json.load(open(sys.argv[1]))[0]; print($2)" "$1"
}

if [[ -z "${SKIP_TRITON:-}" ]]; then  # SKIP_TRITON=1: the KernelBench and compile-time parts only
echo "## Triton examples on $("$KFORGE_PYTHON" -c 'import torch; print(torch.cuda.get_device_name(0))')"
echo
echo "| task | size | status | median ms | spread | GB/s | GFLOP/s |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for manifest in examples/triton/*/kforge.toml; do
  out="$SCRATCH/triton.json"
  "$KFORGE" bench "$manifest" --json > "$out" 2> "$SCRATCH/err" || true
  if [[ -s "$out" ]]; then
    field "$out" "'| {} | {} | {} | {:.4f} | {:.1%} | {:.0f} | {:.0f} |'.format(r['task'], r['checks'][0]['size'] if r.get('checks') else '', r['status'], r.get('median_ms') or 0, (r.get('timing') or {}).get('spread', 0), r.get('gbps') or 0, r.get('gflops') or 0)"
  else
    echo "| $manifest | | failed: $(tail -1 "$SCRATCH/err") | | | | |"
  fi
done

fi

echo
echo "## KernelBench problems: eager vs torch.compile vs raw CUDA (kforge_cuda)"
echo
echo "| problem | eager ms | torch.compile ms | compile vs eager | raw CUDA ms | raw CUDA vs eager |"
echo "| --- | --- | --- | --- | --- | --- |"
for problem in examples/kernelbench/*.py; do
  name=$(basename "$problem" .py)
  compiled="$SCRATCH/${name}_compiled.py"
  # The same wrapper `kforge optimize` times as its torch.compile baseline.
  { cat "$problem"; printf '\n\ndef ModelNew(*init_inputs):\n    import torch as _torch\n    return _torch.compile(Model(*init_inputs))\n'; } > "$compiled"
  "$KFORGE" bench "$problem" --source "$compiled" --timeout 600 --json > "$SCRATCH/c.json" 2>/dev/null || true
  eager=$(field "$SCRATCH/c.json" "'{:.4f}'.format(r['baseline_timing']['median_ms']) if r.get('baseline_timing') else 'n/a'" 2>/dev/null || echo n/a)
  tc=$(field "$SCRATCH/c.json" "'{:.4f} | {:.2f}x'.format(r['median_ms'], r['speedup']) if r['status']=='correct' else r['status'] + ' | ' + r['message'][:60]" 2>/dev/null || echo "n/a | n/a")
  raw="n/a | n/a"
  candidate="examples/kernelbench/candidates/${name}_cuda.py"
  if [[ -f "$candidate" ]]; then
    "$KFORGE" bench "$problem" --source "$candidate" --json > "$SCRATCH/r.json" 2>/dev/null || true
    raw=$(field "$SCRATCH/r.json" "'{:.4f} | {:.2f}x'.format(r['median_ms'], r['speedup']) if r['status']=='correct' else r['status'] + ' | ' + r['message'][:60]" 2>/dev/null || echo "n/a | n/a")
  fi
  echo "| $name | $eager | $tc | $raw |"
done

echo
echo "## Compile time of one CUDA kernel (bias_gelu), cold caches"
echo
"$KFORGE_PYTHON" - <<'PY'
import os, re, sys, tempfile, time
sys.path.insert(0, "python")
source = re.search(r'SOURCE = r"""(.*?)"""', open("examples/kernelbench/candidates/bias_gelu_cuda.py").read(), re.S).group(1)
os.environ["KFORGE_CACHE_DIR"] = tempfile.mkdtemp()
import torch
import kforge_cuda
t = time.perf_counter(); kforge_cuda.compile(source, "bias_gelu"); nvrtc_cold = time.perf_counter() - t
kforge_cuda._loaded.clear()
t = time.perf_counter(); kforge_cuda.compile(source, "bias_gelu"); nvrtc_warm = time.perf_counter() - t
from torch.utils.cpp_extension import load_inline
cuda_src = source + r"""
torch::Tensor bias_gelu_launch(torch::Tensor x, torch::Tensor bias) {
  auto out = torch::empty_like(x);
  long long n = x.numel();
  int blocks = (int)std::min<long long>((n + 255) / 256, 65535 * 8);
  bias_gelu<<<blocks, 256>>>(x.data_ptr<float>(), bias.data_ptr<float>(), out.data_ptr<float>(), n, (int)x.size(-1));
  return out;
}
"""
cpp_src = "torch::Tensor bias_gelu_launch(torch::Tensor x, torch::Tensor bias);"
build = tempfile.mkdtemp()
t = time.perf_counter()
load_inline("kforge_bias_gelu", cpp_src, cuda_sources=cuda_src, functions=["bias_gelu_launch"],
            build_directory=build, extra_cuda_cflags=["-O3"], verbose=False)
inline_cold = time.perf_counter() - t
print("| method | cold compile s | cached s |")
print("| --- | --- | --- |")
print(f"| kforge_cuda (NVRTC via cuda-bindings) | {nvrtc_cold:.3f} | {nvrtc_warm:.3f} |")
print(f"| torch.utils.cpp_extension.load_inline | {inline_cold:.1f} | |")
PY
