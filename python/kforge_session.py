"""Answers the worker protocol's requests (see src/worker/session.cpp for the native twin):
info, check (reference vs candidate on fresh inputs per size and seed) and time (interleaved,
cache flushed, CUDA events, median and spread)."""

import contextlib
import math
import os
import random
import tempfile
import time
import warnings

import torch

from kforge_guard import IntegrityGuard
from kforge_runners import KernelBenchRunner, LauncherRunner, ManifestRunner, ShapeMismatch, load_module
from kforge_task import load_task


@contextlib.contextmanager
def poisoned_allocations():
    """While checking, torch fills every new tensor (torch.empty and friends) with NaN, or the
    largest integer: outputs a launcher or a ModelNew allocates itself start poisoned, as the
    manifest's output buffers do, so an element it never writes cannot match by luck. This is
    torch's deterministic mode, in warn-only form: ops without a deterministic kernel still run."""
    previous = (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
    fill = torch.utils.deterministic.fill_uninitialized_memory
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.utils.deterministic.fill_uninitialized_memory = True
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*deterministic.*")
            yield
    finally:
        torch.use_deterministic_algorithms(previous[0], warn_only=previous[1])
        torch.utils.deterministic.fill_uninitialized_memory = fill


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
        self.guard = IntegrityGuard()  # after every import of ours, before any candidate's

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
        if task.launcher:
            return LauncherRunner(task, self.device, self.sandbox)
        return ManifestRunner(task, self.device)

    def synchronize(self):
        if self.cuda:
            torch.cuda.synchronize(self.device)  # waits for every stream on the device

    # ------------------------------------------------------------------------------------------
    def check(self, request):
        task = self.task(request["manifest"])
        reference = self.variant(request["reference"])
        candidate = self.variant(request["variant"])
        tampered = self.guard.message("the candidate module, when imported,")
        if tampered:
            return {"ok": True, "checks": [{"size": request["sizes"][0], "seed": request["seeds"][0],
                                            "passed": False, "message": tampered}]}
        runner = self.runner(task, reference)
        results = []
        with poisoned_allocations():
            for size in request["sizes"]:
                # After the first seed the candidate runs again in the same case: the same
                # input tensors with new values, its previous outputs or model still there. A
                # candidate that computes once and then returns what it cached fails.
                kept = []
                for seed in request["seeds"]:
                    result = self.check_one(runner, size, seed, candidate, reference, kept, request["seeds"][0])
                    results.append(result)
                    if not result["passed"]:
                        return {"ok": True, "checks": results}  # the first failure is enough
        return {"ok": True, "checks": results}

    def check_one(self, runner, size, seed, candidate, reference, kept, init_seed):
        result = {"size": size, "seed": seed, "passed": False}
        values = runner.inputs(size, seed, reference.params)

        # Reference first, in its own case; its outputs are poisoned once copied, so a
        # candidate that finds that memory again in torch's allocator reads NaN, not answers.
        ref = runner.case(reference, size, init_seed)
        ref.load(values)
        ref.run()
        self.synchronize()
        expected = [o.detach().clone() if isinstance(o, torch.Tensor) else o for o in ref.outputs()]
        ref.scrub()
        del ref

        reused = bool(kept)
        try:
            if not kept:
                kept.append(runner.case(candidate, size, init_seed))
            cand = kept[0]
            cand.load(values)
        except ShapeMismatch as e:
            result["message"] = str(e)
            return result
        cand.run()
        self.synchronize()  # work the candidate left on other streams counts too
        message = self.guard.message("the candidate")
        actual = cand.outputs()
        message = message or self.modified_input(cand)
        named = runner.output_names()
        labels = [f"output '{n}'" for n in named] if named else [f"output {i}" for i in range(len(expected))]
        if len(actual) != len(expected):
            message = message or f"{len(actual)} outputs, expected {len(expected)}"
        for label, e in zip(labels, expected):
            # A reference that leaves an output all poison makes every candidate "match".
            if isinstance(e, torch.Tensor) and e.is_floating_point() and e.numel() > 0 and bool(e.isnan().all()):
                message = message or f"the reference wrote nothing to {label} (still all NaN)"
        max_abs = max_rel = 0.0
        mismatches = 0
        for index, (label, a, e) in enumerate(zip(labels, actual, expected)):
            atol, rtol = runner.tolerance(index, e)
            c = compare(a, e, atol, rtol)
            max_abs = max(max_abs, c.get("max_abs_err", 0.0))
            max_rel = max(max_rel, c.get("max_rel_err", 0.0))
            mismatches += c.get("mismatches", 0)
            if not c["passed"] and not message:
                if "first" in c:
                    i, got, want = c["first"]
                    message = (f"{label}: {c['mismatches']} elements differ; first at [{i}]: "
                               f"got {got:g}, expected {want:g}")
                else:
                    message = f"{label}: {c['message']}"
                if reused:
                    message += (" (on a second call with new inputs in the same tensors: results "
                                "reused across calls?)")
        result.update({"max_abs_err": max_abs, "max_rel_err": max_rel, "mismatches": mismatches,
                       "passed": not message, "message": message})
        return result

    @staticmethod
    def modified_input(case):
        """The case's input tensors hold copies of the seed's values; any difference is its doing."""
        for name, tensor, original in case.checked_inputs():
            if not torch.equal(tensor, original):
                return f"input '{name}' was modified by the kernel"
        return ""

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

        variants = []
        for spec in request["variants"]:
            variants.append((spec["id"], self.variant(spec)))
            tampered = self.guard.message(f"variant {spec['id']}, when imported,")
            if tampered:
                return {"ok": False, "error": tampered}
        problem = variants[0][1] if not task.kernelbench else self.variant(
            {"binary_file": task.path, "entry": "Model", "params": {}})
        runner = self.runner(task, problem)
        values = runner.inputs(size, seed, variants[0][1].params)  # the same inputs for all
        timed = []
        for vid, variant in variants:
            case = runner.case(variant, size, seed)
            try:
                case.load(values)
            except ShapeMismatch:  # its parameters change the input shapes: inputs of its own
                case.load(runner.inputs(size, seed, variant.params))
            timed.append({"id": vid, "run": case.run, "samples": [], "wall": []})

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
            tampered = self.guard.message(f"variant {entry['id']}, when run,")
            if tampered:  # a patched timer would make every number below a lie
                return {"ok": False, "error": tampered}

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

        tampered = self.guard.message("a variant, while timed,")
        if tampered:
            return {"ok": False, "error": tampered}
        results = []
        for entry in timed:
            stats = summarize(entry["samples"])
            stats["wall_ms"] = summarize(entry["wall"])["median_ms"]
            # Per-round samples: the orchestrator pairs them across variants for the speedup's CI.
            results.append({"id": entry["id"], "stats": stats, "samples_ms": entry["samples"]})
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
