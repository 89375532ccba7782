"""Answers the worker protocol's requests (see src/worker/session.cpp for the native twin):
info, check (reference vs candidate on fresh inputs per size and seed) and time (interleaved,
cache flushed, CUDA events, median and spread)."""

import math
import os
import random
import tempfile
import time

import torch

from kforge_runners import KernelBenchRunner, ManifestRunner, ShapeMismatch, load_module
from kforge_task import load_task


class Variant:
    def __init__(self, module, entry, params):
        self.module = module
        self.entry = entry
        self.params = params


# ----------------------------------------------------------------------------------------------
# Statistics: the same as src/eval/timing.cpp, so native and Python timings read alike.

def _quantile(sorted_samples, q):
    if not sorted_samples:
        return 0.0
    position = q * (len(sorted_samples) - 1)
    lower = int(math.floor(position))
    upper = min(lower + 1, len(sorted_samples) - 1)
    fraction = position - lower
    return sorted_samples[lower] * (1 - fraction) + sorted_samples[upper] * fraction


def summarize(samples):
    stats = {"median_ms": 0.0, "min_ms": 0.0, "mean_ms": 0.0, "spread": 0.0, "rel_ci": 0.0,
             "samples": len(samples), "wall_ms": 0.0}
    if not samples:
        return stats
    s = sorted(samples)
    stats["median_ms"] = _quantile(s, 0.5)
    stats["min_ms"] = s[0]
    stats["mean_ms"] = sum(s) / len(s)
    iqr = _quantile(s, 0.75) - _quantile(s, 0.25)
    if stats["median_ms"] > 0:
        stats["spread"] = iqr / stats["median_ms"]
        sigma = iqr / 1.349  # robust sigma; the median's standard error is ~1.253 sigma / sqrt(n)
        stats["rel_ci"] = 1.96 * 1.253 * sigma / math.sqrt(len(s)) / stats["median_ms"]
    return stats


def compare(actual, expected, atol, rtol):
    """Element-wise |a - e| <= atol + rtol * |e|; NaN where the reference has NaN is equal."""
    if actual is None or not isinstance(actual, torch.Tensor):
        return {"passed": False, "message": f"got {type(actual).__name__}, expected a tensor"}
    if actual.shape != expected.shape:
        return {"passed": False, "message": f"shape {list(actual.shape)}, expected {list(expected.shape)}"}
    # On the tensors' device: pulling large outputs to the host would dominate the check.
    a = actual.detach().reshape(-1).to(expected.device, torch.float64)
    e = expected.detach().reshape(-1).to(torch.float64)
    diff = (a - e).abs()
    both_nan = a.isnan() & e.isnan()
    bad = ~((diff <= atol + rtol * e.abs()) | both_nan)
    finite = ~bad
    result = {"passed": not bool(bad.any()), "mismatches": int(bad.sum()),
              "max_abs_err": float(diff[finite].max()) if bool(finite.any()) else 0.0}
    rel = diff / e.abs().clamp_min(1e-12)
    result["max_rel_err"] = float(rel[finite].max()) if bool(finite.any()) else 0.0
    if bad.any():
        i = int(bad.nonzero()[0])
        result["first"] = (i, float(a[i]), float(e[i]))
        result["max_abs_err"] = max(result["max_abs_err"], float(diff[bad].nan_to_num(float("inf")).max()))
    return result


class Session:
    def __init__(self, backend, device_index):
        self.backend = backend
        self.cuda = torch.cuda.is_available()
        if self.cuda:
            torch.cuda.set_device(device_index)
            self.device = torch.device("cuda", device_index)
        else:
            self.device = torch.device("cpu")
        self.sandbox = tempfile.mkdtemp(prefix="kforge-py-")
        self.tasks = {}
        self.flush_buffer = None

    # ------------------------------------------------------------------------------------------
    def handle(self, request):
        op = request.get("op")
        if op == "info":
            return self.info()
        if op == "check":
            return self.check(request)
        if op == "time":
            return self.time(request)
        if op == "bandwidth":
            return {"ok": True, "copy_gbps": self.copy_bandwidth()}
        return {"ok": False, "error": f"unknown request '{op}'"}

    def context_lost(self, error):
        # CUDA errors after an illegal access are sticky: nothing on this context can be trusted.
        text = str(error)
        return self.cuda and ("illegal memory access" in text or "device-side assert" in text
                              or "unspecified launch failure" in text)

    def info(self):
        versions = f"torch {torch.__version__}"
        try:
            import triton
            versions += f", triton {triton.__version__}"
        except ImportError:
            pass
        if self.cuda:
            p = torch.cuda.get_device_properties(self.device)
            device = {"backend": self.backend, "name": p.name, "arch": f"sm_{p.major}{p.minor}",
                      "platform": versions, "compute_units": p.multi_processor_count,
                      "global_mem_bytes": p.total_memory, "l2_bytes": self.l2_bytes(),
                      "clock_mhz": 0, "is_gpu": True}
        else:
            mode = "Triton interpreter" if self.backend == "triton" else "eager"
            device = {"backend": self.backend, "name": f"cpu ({mode})", "arch": "cpu", "platform": versions,
                      "compute_units": os.cpu_count() or 1, "global_mem_bytes": 0, "l2_bytes": 0,
                      "clock_mhz": 0, "is_gpu": False}
        return {"ok": True, "device": device}

    def l2_bytes(self):
        if not self.cuda:
            return 0
        p = torch.cuda.get_device_properties(self.device)
        return int(getattr(p, "L2_cache_size", 50 << 20))

    # ------------------------------------------------------------------------------------------
    def task(self, manifest):
        if manifest not in self.tasks:
            self.tasks[manifest] = load_task(manifest)
        return self.tasks[manifest]

    def variant(self, spec):
        module = load_module(spec["binary_file"], self.sandbox)
        return Variant(module, spec["entry"], {k: int(v) for k, v in spec.get("params", {}).items()})

    def runner(self, task, reference):
        if task.kernelbench:
            return KernelBenchRunner(task, self.device, reference.module)
        return ManifestRunner(task, self.device)

    def synchronize(self):
        if self.cuda:
            torch.cuda.synchronize(self.device)  # waits for every stream on the device

    # ------------------------------------------------------------------------------------------
    def check(self, request):
        task = self.task(request["manifest"])
        candidate = self.variant(request["variant"])
        reference = self.variant(request["reference"])
        runner = self.runner(task, reference)
        results = []
        for size in request["sizes"]:
            for seed in request["seeds"]:
                result = self.check_one(task, runner, size, seed, candidate, reference)
                results.append(result)
                if not result["passed"]:
                    return {"ok": True, "checks": results}  # the first failure is enough
        return {"ok": True, "checks": results}

    def check_one(self, task, runner, size, seed, candidate, reference):
        result = {"size": size, "seed": seed, "passed": False}
        ref, ref_args = runner.prepare(reference, size, seed)
        pristine = [a.clone() if isinstance(a, torch.Tensor) else a for a in ref_args]
        ref.run()
        self.synchronize()
        expected = [o.detach().clone() if isinstance(o, torch.Tensor) else o for o in ref.outputs()]
        try:
            cand, _ = runner.prepare(candidate, size, seed, shared_inputs=pristine)
        except ShapeMismatch as e:
            result["message"] = str(e)
            return result
        cand.run()
        self.synchronize()  # work the candidate left on other streams counts too
        actual = cand.outputs()
        message = ""
        for name, tensor, original in cand.inputs:
            if not torch.equal(tensor, original):
                message = f"{name} was modified by the kernel"
                break
        names = runner.output_names() or [f"output {i}" for i in range(len(expected))]
        dtypes = runner.output_dtypes() or [None] * len(expected)
        if len(actual) != len(expected):
            message = message or f"{len(actual)} outputs, expected {len(expected)}"
        max_abs = max_rel = 0.0
        mismatches = 0
        for name, e in zip(names, expected):
            # A reference that leaves an output all poison makes every candidate "match".
            if isinstance(e, torch.Tensor) and e.is_floating_point() and e.numel() > 0 and bool(e.isnan().all()):
                message = message or f"the reference wrote nothing to output '{name}' (still all NaN)"
        for name, dtype, a, e in zip(names, dtypes, actual, expected):
            atol, rtol = task.tolerance_for(dtype) if dtype else task.tolerance
            c = compare(a, e, atol, rtol)
            max_abs = max(max_abs, c.get("max_abs_err", 0.0))
            max_rel = max(max_rel, c.get("max_rel_err", 0.0))
            mismatches += c.get("mismatches", 0)
            if not c["passed"] and not message:
                if "first" in c:
                    i, got, want = c["first"]
                    message = (f"output '{name}': {c['mismatches']} elements differ; first at [{i}]: "
                               f"got {got:g}, expected {want:g}")
                else:
                    message = f"output '{name}': {c['message']}"
        result.update({"max_abs_err": max_abs, "max_rel_err": max_rel, "mismatches": mismatches,
                       "passed": not message, "message": message})
        return result

    # ------------------------------------------------------------------------------------------
    def flush_cache(self):
        """Evicts L2 by writing a buffer twice its size, as the native worker does."""
        if not self.cuda:
            return
        if self.flush_buffer is None:
            self.flush_buffer = torch.empty(max(2 * self.l2_bytes(), 8 << 20), dtype=torch.uint8, device=self.device)
        self.flush_buffer.zero_()

    def timed_call(self, run):
        if self.cuda:
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            run()
            end.record()
            end.synchronize()
            return start.elapsed_time(end)
        t0 = time.perf_counter()
        run()
        return (time.perf_counter() - t0) * 1e3

    def wall_call(self, run):
        self.synchronize()
        t0 = time.perf_counter()
        run()
        self.synchronize()
        return (time.perf_counter() - t0) * 1e3

    def time(self, request):
        task = self.task(request["manifest"])
        size = request["size"]
        seed = int(request.get("seed", 1))
        warmup_ms = float(request.get("warmup_ms", 20.0))
        min_samples = int(request.get("min_samples", 10))
        max_samples = int(request.get("max_samples", 2000))
        max_seconds = float(request.get("max_seconds", 2.0))
        target_rel_ci = float(request.get("target_rel_ci", 0.01))
        flush = bool(request.get("flush_cache", True))

        variants = [(v["id"], self.variant(v)) for v in request["variants"]]
        problem = variants[0][1] if not task.kernelbench else self.variant(
            {"binary_file": task.path, "entry": "Model", "params": {}})
        runner = self.runner(task, problem)
        timed = []
        shared = None
        for vid, variant in variants:
            try:
                prepared, args = runner.prepare(variant, size, seed, shared_inputs=shared)
            except ShapeMismatch:
                prepared, args = runner.prepare(variant, size, seed)
            shared = shared or [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
            timed.append({"id": vid, "run": prepared.run, "samples": [], "wall": []})

        # Warm-up: Triton's JIT compile, first touch and clock ramp-up stay out of the numbers.
        for entry in timed:
            start = time.perf_counter()
            i = 0
            while i < 3 or (time.perf_counter() - start) * 1e3 < warmup_ms / len(timed):
                entry["run"]()
                self.synchronize()
                i += 1
                if i > 1000:
                    break

        # Interleaved rounds in random order, so drift hits all variants alike.
        rng = random.Random(seed)
        order = list(range(len(timed)))
        start = time.perf_counter()
        for round_index in range(max_samples):
            rng.shuffle(order)
            for index in order:
                entry = timed[index]
                if flush:
                    self.flush_cache()
                entry["samples"].append(self.timed_call(entry["run"]))
                if round_index % 8 == 0:  # host wall time with a full sync exposes hidden work
                    entry["wall"].append(self.wall_call(entry["run"]))
            precise = all(len(e["samples"]) >= min_samples and summarize(e["samples"])["rel_ci"] <= target_rel_ci
                          for e in timed)
            if precise or time.perf_counter() - start > max_seconds:
                break

        results = []
        for entry in timed:
            stats = summarize(entry["samples"])
            stats["wall_ms"] = summarize(entry["wall"])["median_ms"]
            results.append({"id": entry["id"], "stats": stats})
        return {"ok": True, "results": results}

    def copy_bandwidth(self):
        """Device-to-device copy GB/s (bytes read + written), for the roofline."""
        n = (256 << 20) if self.cuda else (64 << 20)
        src = torch.empty(n, dtype=torch.uint8, device=self.device)
        dst = torch.empty_like(src)
        dst.copy_(src)
        self.synchronize()
        samples = []
        for _ in range(10):
            samples.append(self.timed_call(lambda: dst.copy_(src)))
        ms = sorted(samples)[len(samples) // 2]
        return 2 * n / (ms / 1e3) / 1e9
