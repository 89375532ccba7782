#!/usr/bin/env python3
"""GPU check of the Python judge/runner split (docs/PYTHON_TASKS.md), for the GPU machine: one
honest KernelBench candidate and three planted cheats go through a check and a timed request,
with tensors passed to the runners by CUDA IPC. Expected: the honest one correct and timed,
memo_data_ptr failing a timed call, stack_walk incorrect, reads_secret correct only when the
isolation report says /proc of others is hidden. Run from the checkout root:
  OPENAI_API_KEY=sk-kforge-planted-1 python3 scripts/gpu_python_isolation.py
"""
import sys, os, json, time
sys.path.insert(0, "python")
import torch
print("torch", torch.__version__, "cuda", torch.cuda.is_available(), flush=True)
import kforge_session as ks
from kforge_confine import report
print("isolation", report(), flush=True)
P = os.getcwd()
prob = f"{P}/tests/kernels/cheats_python/small_bias_gelu.py"
# The plan the orchestrator would send (docs/WORKER_PROTOCOL.md): a KernelBench problem.
task = {"name": "small_bias_gelu", "language": "pytorch", "args": [],
        "dtype_tolerances": {d: {"atol": 1e-2, "rtol": 1e-2} for d in ("f16", "bf16", "f32", "f64")},
        "sizes": [{"name": "default", "vars": {}}],
        "python": {"kind": "kernelbench", "kernel": "Model", "problem_file": prob, "sources": [prob], "default_params": {}}}
launch = {"size": "default", "shapes": [], "scalars": [], "fan_in": [], "grid": [1, 1, 1], "block": [1, 1, 1], "shared_mem": 0}
ref = {"id": "reference", "binary_file": prob, "entry": "Model", "params": {}, "launch": launch}
s = ks.Session("pytorch", 0)
for cand in ["examples/kernelbench/candidates/bias_gelu_torch.py", "tests/kernels/cheats_python/memo_data_ptr.py", "tests/kernels/cheats_python/stack_walk.py", "tests/kernels/cheats_python/reads_secret.py"]:
    var = {"id": "candidate", "binary_file": f"{P}/{cand}", "entry": "Model", "params": {}, "launch": launch}
    t = time.perf_counter()
    try:
        c = s.check({"op": "check", "task": task, "reference": ref, "variant": var, "size": "default", "seeds": [1, 2]})
        tc = time.perf_counter() - t
        t = time.perf_counter()
        r = s.time({"op": "time", "task": task, "size": "default", "seed": 5, "max_seconds": 0.5, "reference": ref,
                    "variants": [dict(ref, id="0"), dict(var, id="1")]})
        print(cand, "check", [(x["passed"], x["message"][:100]) for x in c["checks"]], f"{tc:.2f}s", "time", str(r)[:300], f"{time.perf_counter() - t:.2f}s", flush=True)
    except Exception as e:
        import traceback; traceback.print_exc()
        print(cand, "EXC", type(e).__name__, e, flush=True)
s.close()
