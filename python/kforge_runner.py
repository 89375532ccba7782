#!/usr/bin/env python3
"""kforge's runner: the only process that imports and runs a candidate (or a baseline).

Started by the judge (kforge_session.py) as a fresh interpreter (`python -I`, never a fork, so it
holds none of the judge's memory), in its own folder, with a scrubbed environment, and confined
by Landlock before anything else happens (kforge_confine.py). It never receives the reference's
outputs, the checker, the tolerances or anything that tells a check from a timed call: it is
given shared input sets and output slots (kforge_shared.py) and asked, one call at a time, to
run the variant on set k. Every call goes through the same steps: prepare (outside the timed
region: fresh copies of in/out arguments, outputs poisoned), cache flush on a GPU, timed call,
full synchronisation, copy of the outputs into set k's slots, then the outputs the variant
returned are poisoned, so the memory it gets back from torch's allocator never holds an answer.

Protocol (JSON lines; replies on the original stdout, anything printed goes to stderr):
  {"op": "load", "kind": "kernelbench"|"launcher"|"args", "file", "entry", "params", "task" (plan), "launch",
   "size", "seed", "init", "sets": [[value...]...], "outs": [[descriptor|null...]...], "flush"}
  {"op": "run", "set": k}  ->  {"ok", "ms", "wall_ms", "outputs": [{type, shape, dtype}], "tampered"}
"""

import argparse
import json
import os
import sys

_PROTOCOL = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ctypes  # noqa: E402
import signal  # noqa: E402
import time  # noqa: E402

from kforge_confine import enter_namespaces, restrict_self  # noqa: E402

# The timer is taken before any candidate is imported: patching time.perf_counter later changes
# nothing here (the guard still reports it).
_clock = time.perf_counter


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--folder", required=True)
    parser.add_argument("--shared", required=True)
    parser.add_argument("--device", type=int, default=0)
    parser.add_argument("--no-namespaces", dest="namespaces", action="store_false")
    parser.add_argument("--cuda", action="store_true")
    options = parser.parse_args()
    ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: dies with the judge
    if options.namespaces:
        inside, namespace = enter_namespaces()
        namespace = namespace or "PID namespace"
    else:
        namespace = "no PID namespace (CUDA)"
    # With CUDA Landlock is left off: the driver failed to initialise under it on
    # the H200 (error 304), and the worker-wide sandbox (read-only mounts but for the worker's
    # folder, src/eval/sandbox.h) already confines the runner, a descendant of the worker.
    abi, why = (0, "off with CUDA") if options.cuda else restrict_self([options.folder, options.shared])
    os.chdir(options.folder)

    import torch
    if not torch.cuda.is_available():
        os.environ.setdefault("TRITON_INTERPRET", "1")
    from kforge_guard import IntegrityGuard
    import kforge_task  # noqa: F401  (guarded too)
    import kforge_runners  # noqa: F401
    runner = Runner(options, torch)
    guard = IntegrityGuard()
    _PROTOCOL.write(json.dumps({"ok": True, "ready": True, "landlock_abi": abi, "landlock": why or "on",
                                "namespace": namespace}) + "\n")
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("op") == "exit":
            break
        try:
            reply = runner.handle(request)
        except Exception as e:  # the candidate's failure: a value for the judge
            import traceback
            traceback.print_exc(file=sys.stderr)
            reply = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        reply["tampered"] = guard.violations()
        _PROTOCOL.write(json.dumps(reply, default=str) + "\n")
    return 0


class Runner:
    def __init__(self, options, torch):
        self.torch = torch
        self.folder = options.folder
        self.cuda = torch.cuda.is_available()
        if self.cuda:
            torch.cuda.set_device(options.device)
            self.device = torch.device("cuda", options.device)
            self.event = torch.cuda.Event
            self.elapsed = torch.cuda.Event.elapsed_time
            self.synchronize = torch.cuda.synchronize
        else:
            self.device = torch.device("cpu")
        self.flush_buffer = None
        self.sets = []
        self.outs = []
        self.call = None       # call(k) -> what the variant returned
        self.prepare = None    # prepare(k): outside the timed region
        self.outputs = None    # outputs(k, returned) -> list of outputs
        self.flush = True

    def handle(self, request):
        op = request.get("op")
        if op == "load":
            return self.load(request)
        if op == "run":
            return self.run(int(request["set"]))
        return {"ok": False, "error": f"unknown request '{op}'"}

    # ------------------------------------------------------------------------------------------
    def load(self, request):
        from kforge_runners import ArgsLauncher, load_module, ShapeMismatch
        from kforge_shared import attach, decode_value
        from kforge_task import Task
        torch = self.torch
        self.sets = [[decode_value(v, self.device) for v in values] for values in request["sets"]]
        self.outs = [[attach(d, self.device) if d else None for d in slots] for slots in request["outs"]]
        self.flush = bool(request.get("flush", True))
        module = load_module(request["file"], self.folder)
        params = {k: int(v) for k, v in request.get("params", {}).items()}
        kind = request["kind"]
        task = Task(request["task"])
        self.prepare = lambda k: None
        self.outputs = lambda k, returned: _as_list(returned)
        if kind == "kernelbench":
            from kforge_runners import model_class
            init = [decode_value(v, self.device) for v in request["init"]]
            torch.manual_seed(int(request["seed"]))  # the same weights as the judge's Model
            model = model_class(module)(*init).to(self.device).eval()

            def call(k):
                with torch.no_grad():
                    return model(*self.sets[k])
            self.call = call
        elif kind == "launcher":
            from kforge_runners import launcher_function
            fn, kwargs = launcher_function(task, module, request["entry"], params)
            self.call = lambda k: fn(*self.sets[k], **kwargs)
        else:
            try:
                launchers = [ArgsLauncher(task, module, request["entry"], params, request["launch"], values, self.device)
                             for values in self.sets]
            except ShapeMismatch as e:
                return {"ok": False, "shape_mismatch": str(e)}
            self.prepare = lambda k: launchers[k].prepare()
            self.call = lambda k: launchers[k].launch()
            self.outputs = lambda k, returned: launchers[k].outputs()
        return {"ok": True}

    # ------------------------------------------------------------------------------------------
    def flush_cache(self):
        if not self.cuda or not self.flush:
            return
        if self.flush_buffer is None:
            p = self.torch.cuda.get_device_properties(self.device)
            size = max(2 * int(getattr(p, "L2_cache_size", 50 << 20)), 8 << 20)
            self.flush_buffer = self.torch.empty(size, dtype=self.torch.uint8, device=self.device)
        self.flush_buffer.zero_()

    def run(self, k):
        """One call on set k; the same steps every time (see the module comment)."""
        from kforge_runners import poison
        torch = self.torch
        self.prepare(k)
        self.flush_cache()
        if self.cuda:
            start, end = self.event(enable_timing=True), self.event(enable_timing=True)
            self.synchronize()
            t0 = _clock()
            start.record()
            returned = self.call(k)
            end.record()
            self.synchronize()  # every stream: work left elsewhere shows in wall_ms
            t1 = _clock()
            ms = self.elapsed(start, end)
        else:
            t0 = _clock()
            returned = self.call(k)
            t1 = _clock()
            ms = (t1 - t0) * 1e3
        outputs = self.outputs(k, returned)
        described = []
        inputs = {_storage(v) for v in self.sets[k] if isinstance(v, torch.Tensor)}
        for i, out in enumerate(outputs):
            if not isinstance(out, torch.Tensor):
                described.append({"type": type(out).__name__})
                continue
            described.append({"type": "Tensor", "shape": list(out.shape), "dtype": str(out.dtype)})
            slot = self.outs[k][i] if i < len(self.outs[k]) else None
            if slot is not None and list(slot.shape) == list(out.shape):
                slot.copy_(out.detach())
        if self.cuda:
            self.synchronize()
        for out in outputs:  # what it returned goes back to the allocator as poison
            if isinstance(out, torch.Tensor) and _storage(out) not in inputs and out.numel() > 0:
                with torch.no_grad():
                    poison(out.detach())
        return {"ok": True, "ms": ms, "wall_ms": (t1 - t0) * 1e3, "outputs": described}


def _storage(tensor):
    return tensor.untyped_storage().data_ptr()


def _as_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, (tuple, list)) else [value]


if __name__ == "__main__":
    sys.exit(main())
