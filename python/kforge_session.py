"""The judge: answers the worker protocol's requests (see src/worker/session.cpp for the native
twin): info, check (reference vs candidate on fresh inputs per size and seed) and time
(interleaved, cache flushed, median and spread, timed calls verified).

The judge never imports a candidate. Each variant runs in its own runner process
(kforge_runner.py, a fresh interpreter, see kforge_confine.py), which gets shared input sets and
output slots (kforge_shared.py) and is asked to make one call at a time on set k. The reference,
the input builders and the KernelBench problem run here, loaded from task files whose content is
remembered when first read (TrustedFiles); the comparison and the tolerances stay here too.
"""

import contextlib
import hashlib
import importlib.util
import itertools
import json
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings

import torch

from kforge_confine import become_subreaper, kill_descendants, report, runner_environment, use_namespaces
from kforge_guard import describe_violations
from kforge_runners import KernelBenchRunner, LauncherRunner, ManifestRunner, _signature_names
from kforge_shared import empty_shared, encode_value
from kforge_task import Task

RUNNER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kforge_runner.py")
TIMING_SETS = 3          # input sets rotated through by the timed calls
PERTURBED = 4            # elements of every input tensor changed before each timed call
VERIFY_ONE_IN = 8        # timed calls verified at random, besides each variant's first and last
VERIFY_MAX = 24          # at most this many random verifications per variant and request
SPARE_RUNNERS = 2        # a check needs one new runner, a time request one more (the baseline)


class HarnessError(Exception):
    """The harness cannot be trusted any more (a task file changed under it)."""


class CandidateFailed(Exception):
    """The candidate's runner raised or died: the message is already one line."""
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
    def __init__(self, module, entry, params, launch):
        self.module = module
        self.entry = entry
        self.params = params
        self.launch = launch  # its LaunchPlan at the request's size (docs/WORKER_PROTOCOL.md)


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


def compare(actual, expected, atol, rtol, quick=False):
    """Element-wise |a - e| <= atol + rtol * |e|; NaN where the reference has NaN is equal.
    `quick` (timed calls): when everything passes, the error figures are not computed."""
    if actual is None or not isinstance(actual, torch.Tensor):
        return {"passed": False, "message": f"got {type(actual).__name__}, expected a tensor"}
    if actual.shape != expected.shape:
        return {"passed": False, "message": f"shape {list(actual.shape)}, expected {list(expected.shape)}"}
    if quick:
        a, e = actual.detach().to(expected.device, torch.float64), expected.detach().to(torch.float64)
        if bool(((a - e).abs() <= atol + rtol * e.abs()).logical_or_(a.isnan() & e.isnan()).all()):
            return {"passed": True}
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


class TrustedFiles:
    """Task files the judge runs (the reference, input builders, the KernelBench problem). A file's
    content hash is remembered the first time it is read; a later read that differs is refused
    (a candidate must not change what it is judged against), and modules are made from the text
    that was hashed, as fresh module objects in the judge's private folder, out of reach of any
    runner (runners may write only beneath their own folders)."""

    def __init__(self, folder):
        self.folder = folder
        self.hashes = {}
        self.modules = {}
        self.counter = itertools.count()

    def load(self, path):
        path = os.path.abspath(path)
        with open(path, "rb") as f:
            data = f.read()
        digest = hashlib.sha256(data).hexdigest()
        first = self.hashes.setdefault(path, digest)
        if first != digest:
            raise HarnessError(f"{path} changed on disk since this worker first read it (sha256 {first[:12]} -> "
                               f"{digest[:12]}); restore it and restart kforge")
        if digest not in self.modules:
            name = f"kforge_trusted_{digest[:16]}_{next(self.counter)}"
            copy = os.path.join(self.folder, name + ".py")
            with open(copy, "wb") as f:
                f.write(data)
            spec = importlib.util.spec_from_file_location(name, copy)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            self.modules[digest] = module
        return self.modules[digest]


class RunnerProcess:
    """One runner (kforge_runner.py) and the shared memory the judge gave it. Stopped (SIGSTOP)
    whenever another runner makes a timed call, so it cannot steal the other's time; killed with
    every descendant when the judge is done with its variant."""

    def __init__(self, session, key):
        self.key = key
        self.session = session
        self.folder = tempfile.mkdtemp(prefix="runner-", dir=session.sandbox)
        self.shared = tempfile.mkdtemp(prefix="runner-", dir=session.shared_root)
        self.keep = []  # shared tensors the judge must keep alive while the runner uses them
        command = [sys.executable, "-I", RUNNER_SCRIPT, "--folder", self.folder, "--shared", self.shared,
                   "--device", str(session.device_index)] + ([] if use_namespaces(session.cuda) else ["--no-namespaces"]) \
            + (["--cuda"] if session.cuda else [])
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        env=runner_environment(self.folder), cwd=self.folder,
                                        start_new_session=True, close_fds=True)
        self.running = True
        self.original = False  # set by Session.runners_for
        self.hello = None  # read by ready(): a spare imports torch while the judge does other work

    def ready(self):
        if self.hello is None:
            self.hello = self.receive()
            if not self.hello.get("ok"):
                raise CandidateFailed(f"the runner did not start: {self.hello.get('error')}")
        return self

    def receive(self):
        line = self.process.stdout.readline()
        if not line:
            code = self.process.wait()
            why = f"signal {-code}" if code < 0 else f"status {code}"
            raise CandidateFailed(f"the variant's process exited ({why}) during the call")
        return json.loads(line)

    def request(self, message):
        """Sends one request and returns the reply; the runner is stopped (SIGSTOP) as soon as it
        has answered, so nothing it left running (a thread finishing the work after the timed
        call, writing into the output slots) runs while the judge reads its outputs or times
        another variant."""
        self.ready()
        self.resume()
        try:
            self.process.stdin.write((json.dumps(message) + "\n").encode())
            self.process.stdin.flush()
        except BrokenPipeError:
            pass  # receive() reports how it died
        try:
            return self.receive()
        finally:
            self.pause()

    def signal_group(self, sig):
        try:
            os.killpg(self.process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def pause(self):
        if self.running and self.process.poll() is None:
            self.signal_group(signal.SIGSTOP)
            self.running = False

    def resume(self):
        if not self.running:
            self.signal_group(signal.SIGCONT)
            self.running = True

    def stop(self):
        self.signal_group(signal.SIGKILL)
        self.process.kill()
        self.process.wait()
        self.keep.clear()
        shutil.rmtree(self.folder, ignore_errors=True)
        shutil.rmtree(self.shared, ignore_errors=True)

    # ------------------------------------------------------------------------------------------
    def load(self, kind, spec, task, size, seed, init, sets, slots_like, flush):
        """Shares `sets` (lists of input values) and one output slot per expected output; returns
        (reply, shared sets, shared slots)."""
        self.keep.clear()
        device = self.session.device
        encoded_sets, shared_sets = [], []
        for values in sets:
            parts = [encode_value(v, device, self.shared, self.keep) for v in values]
            encoded_sets.append([p[0] for p in parts])
            shared_sets.append([p[1] for p in parts])
        encoded_outs, shared_outs = [], []
        for _ in sets:
            descriptors, slots = [], []
            for e in slots_like:
                if isinstance(e, torch.Tensor):
                    slot, descriptor = empty_shared(e.shape, e.dtype, device, self.shared)
                    self.keep.append(slot)
                else:
                    slot, descriptor = None, None
                descriptors.append(descriptor)
                slots.append(slot)
            encoded_outs.append(descriptors)
            shared_outs.append(slots)
        init_encoded = [encode_value(v, device, self.shared, self.keep)[0] for v in init]
        self.session.synchronize()
        reply = self.request({"op": "load", "kind": kind, "file": spec["binary_file"], "entry": spec["entry"],
                              "params": spec.get("params", {}), "task": task.plan, "launch": spec["launch"],
                              "size": size,
                              "seed": int(seed), "init": init_encoded, "sets": encoded_sets,
                              "outs": encoded_outs, "flush": bool(flush)})
        # Both sides have mapped the files: unlinked now, their memory lives as long as the
        # mappings, and a judge killed by a timeout leaves nothing behind in /dev/shm.
        for name in os.listdir(self.shared):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(self.shared, name))
        return reply, shared_sets, shared_outs


def _runner_key(spec):
    return json.dumps([os.path.abspath(spec["binary_file"]), spec["entry"], spec.get("params", {})], sort_keys=True)


def _perturb(generator, mirror, shared):
    """Changes a few elements of every input tensor (each copied from another position of the
    same tensor, so values stay in the input's own distribution): no timed call sees inputs an
    earlier call saw, so nothing memoised on them is right."""
    for mine, theirs in zip(mirror, shared):
        if not isinstance(mine, torch.Tensor) or mine.numel() < 2:
            continue
        flat_mine, flat_theirs = mine.view(-1), theirs.view(-1)
        n = flat_mine.numel()
        where = torch.randint(n, (PERTURBED,), generator=generator).to(mine.device)
        source = torch.randint(n, (PERTURBED,), generator=generator).to(mine.device)
        values = flat_mine[source]
        flat_mine[where] = values
        flat_theirs[where] = values


class Session:
    def __init__(self, backend, device_index):
        self.backend = backend
        self.cuda = torch.cuda.is_available()
        if self.cuda:
            torch.cuda.set_device(device_index)
            self.device = torch.device("cuda", device_index)
        else:
            self.device = torch.device("cpu")
        self.device_index = device_index
        self.subreaper = become_subreaper()
        self.sandbox = tempfile.mkdtemp(prefix="kforge-py-")
        self.private = tempfile.mkdtemp(prefix="judge-", dir=self.sandbox)
        shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else self.sandbox
        self.shared_root = tempfile.mkdtemp(prefix=f"kforge-{os.getpid()}-", dir=shm)
        self.trusted = TrustedFiles(self.private)
        self.runners = {}      # runner key -> RunnerProcess
        self.spares = []       # started runners without a variant yet
        self.last_op = None
        self.flush_buffer = None

    def close(self):
        for runner in list(self.runners.values()) + self.spares:
            runner.stop()
        self.runners.clear()
        self.spares.clear()
        kill_descendants()
        shutil.rmtree(self.shared_root, ignore_errors=True)
        shutil.rmtree(self.sandbox, ignore_errors=True)

    # ------------------------------------------------------------------------------------------
    def handle(self, request):
        op = request.get("op")
        self.last_op = op
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
        return {"ok": True, "device": device, "isolation": report(self.cuda)}

    def l2_bytes(self):
        if not self.cuda:
            return 0
        p = torch.cuda.get_device_properties(self.device)
        return int(getattr(p, "L2_cache_size", 50 << 20))

    def synchronize(self):
        if self.cuda:
            torch.cuda.synchronize(self.device)  # waits for every stream on the device

    # ------------------------------------------------------------------------------------------
    # What the judge itself runs: the task, the reference and the inputs.

    @staticmethod
    def task(plan):
        task = Task(plan)
        task.plan = plan  # passed on to the runners as it came
        return task

    def reference(self, spec, task):
        """The reference variant, from a task file (kept by TrustedFiles)."""
        del task
        return Variant(self.trusted.load(spec["binary_file"]), spec["entry"],
                       {k: int(v) for k, v in spec.get("params", {}).items()}, spec["launch"])

    def harness(self, task, reference):
        if task.kernelbench:
            return KernelBenchRunner(task, self.device, self.trusted.load(task.problem_file))
        if task.launcher:
            return LauncherRunner(task, self.device, self.trusted.load)
        return ManifestRunner(task, self.device)

    @staticmethod
    def kind(task):
        return "kernelbench" if task.kernelbench else ("launcher" if task.launcher else "args")

    def expected_outputs(self, harness, reference, size, init_seed, values):
        """The reference's outputs on `values`, computed here with NaN-filled allocations."""
        with poisoned_allocations():
            ref = harness.case(reference, size, init_seed)
            ref.load(values)
            ref.run()
            self.synchronize()
            expected = [o.detach().clone() if isinstance(o, torch.Tensor) else o for o in ref.outputs()]
            ref.scrub()
        return expected

    def input_names(self, task, reference, count):
        if task.kernelbench:
            return [f"input {i}" for i in range(count)]
        if task.launcher:
            names = _signature_names(getattr(reference.module, reference.entry, None) or (lambda: None))
        else:
            names = [a["name"] for a in task.args if a["role"] in ("input", "inout")]
        return [names[i] if i < len(names) else f"input {i}" for i in range(count)]

    def is_original(self, spec, task):
        """Whether a variant's code is byte for byte a file of the task (its baseline)."""
        try:
            with open(spec["binary_file"], "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
        except OSError:
            return False
        for source in task.sources:
            try:
                with open(source, "rb") as f:
                    if hashlib.sha256(f.read()).hexdigest() == digest:
                        return True
            except OSError:
                pass
        return False

    def runners_for(self, specs, task):
        """One runner per variant; runners of variants this request does not name are killed,
        with everything they started."""
        keys = []
        for spec in specs:  # the same variant twice in one request (bench against itself): two runners
            key = _runner_key(spec)
            keys.append(key + f"#{sum(k.startswith(key + '#') for k in keys)}")
        specs_by_key = dict(zip(keys, specs))
        for key in list(self.runners):
            if key not in keys and not self.runners[key].original:
                self.runners.pop(key).stop()
        killed = kill_descendants(keep={r.process.pid for r in list(self.runners.values()) + self.spares})
        if killed:
            print(f"kforge judge: killed {killed} process(es) left behind by earlier variants", file=sys.stderr)
        result = []
        for key in keys:
            spec = specs_by_key[key]
            if key in self.runners and self.runners[key].process.poll() is not None:
                self.runners.pop(key).stop()  # died (crashed, killed): a fresh one
            if key not in self.runners:
                self.runners[key] = self.spares.pop(0) if self.spares else RunnerProcess(self, key)
                # The task's own source (the baseline every candidate is timed against) keeps
                # its runner from request to request; any other variant's dies with its request.
                self.runners[key].original = self.is_original(spec, task)
            result.append(self.runners[key].ready())
        return result

    def prepare_spares(self):
        """Called after each reply: after `info` and `time` (a candidate is done), fresh runners
        (no variant loaded yet) start importing torch while the orchestrator compiles or asks the
        LLM for the next candidate, so its check does not wait for them."""
        if self.last_op not in ("info", "time"):
            return
        while len(self.spares) < SPARE_RUNNERS:
            self.spares.append(RunnerProcess(self, "spare"))

    # ------------------------------------------------------------------------------------------
    def verdict(self, task, harness, reference, reply, shared_inputs, mirror, slots, expected, quick=False):
        """One line saying what is wrong with the call the runner just made ("" when right), and
        the error figures."""
        figures = {"max_abs_err": 0.0, "max_rel_err": 0.0, "mismatches": 0}
        if not reply.get("ok"):
            raise CandidateFailed(reply.get("error", "the runner failed"))
        message = describe_violations("the candidate", reply.get("tampered"))
        for name, theirs, mine in zip(self.input_names(task, reference, len(mirror)), shared_inputs, mirror):
            if isinstance(mine, torch.Tensor) and not message and not torch.equal(theirs, mine):
                message = f"input '{name}' was modified by the kernel"
        described = reply.get("outputs", [])
        if len(described) != len(expected):
            message = message or f"{len(described)} outputs, expected {len(expected)}"
        named = harness.output_names()
        labels = [f"output '{n}'" for n in named] if named else [f"output {i}" for i in range(len(expected))]
        for label, e in zip(labels, expected):
            # A reference that leaves an output all poison makes every candidate "match".
            if isinstance(e, torch.Tensor) and e.is_floating_point() and e.numel() > 0 and bool(e.isnan().all()):
                message = message or f"the reference wrote nothing to {label} (still all NaN)"
        for index, (label, d, slot, e) in enumerate(zip(labels, described, slots, expected)):
            if d.get("type") != "Tensor" or slot is None:
                c = {"passed": False, "message": f"got {d.get('type')}, expected a tensor"}
            elif list(d["shape"]) != list(e.shape):
                c = {"passed": False, "message": f"shape {d['shape']}, expected {list(e.shape)}"}
            else:
                atol, rtol = harness.tolerance(index, e)
                c = compare(slot, e, atol, rtol, quick)
            figures["max_abs_err"] = max(figures["max_abs_err"], c.get("max_abs_err", 0.0))
            figures["max_rel_err"] = max(figures["max_rel_err"], c.get("max_rel_err", 0.0))
            figures["mismatches"] += c.get("mismatches", 0)
            if not c["passed"] and not message:
                if "first" in c:
                    i, got, want = c["first"]
                    message = (f"{label}: {c['mismatches']} elements differ; first at [{i}]: "
                               f"got {got:g}, expected {want:g}")
                else:
                    message = f"{label}: {c['message']}"
        return message, figures

    # ------------------------------------------------------------------------------------------
    def check(self, request):
        task = self.task(request["task"])
        reference = self.reference(request["reference"], task)
        spec = request["variant"]
        harness = self.harness(task, reference)
        runner = self.runners_for([spec], task)[0]
        init_seed = request["seeds"][0]
        init = harness.init_inputs(init_seed) if task.kernelbench else []
        results = []
        for size in [request["size"]]:
            # Every seed runs in the same shared tensors with new values copied in: a candidate
            # that computes once and then returns what it cached (by address, shape or "already
            # called") meets new values in old buffers.
            shared = slots = None
            for i, seed in enumerate(request["seeds"]):
                result = {"size": size, "seed": seed, "passed": False}
                results.append(result)
                values = harness.inputs(size, seed, reference.launch)
                expected = self.expected_outputs(harness, reference, size, init_seed, values)
                if shared is None:
                    reply, shared_sets, slot_sets = runner.load(self.kind(task), spec, task, size, init_seed, init,
                                                                [values], expected, True)
                    if not reply.get("ok"):
                        if reply.get("shape_mismatch"):
                            result["message"] = reply["shape_mismatch"]
                            return {"ok": True, "checks": results}
                        tampered = describe_violations("the candidate module, when imported,", reply.get("tampered"))
                        if tampered:
                            result["message"] = tampered
                            return {"ok": True, "checks": results}
                        raise CandidateFailed(reply.get("error"))
                    tampered = describe_violations("the candidate module, when imported,", reply.get("tampered"))
                    if tampered:
                        result["message"] = tampered
                        return {"ok": True, "checks": results}
                    shared, slots = shared_sets[0], slot_sets[0]
                else:
                    for theirs, mine in zip(shared, values):
                        if isinstance(theirs, torch.Tensor):
                            theirs.copy_(mine)
                    self.synchronize()
                reply = runner.request({"op": "run", "set": 0})
                message, figures = self.verdict(task, harness, reference, reply, shared, values, slots, expected)
                if message and i > 0 and "elements differ" in message:
                    message += " (on a second call with new inputs in the same tensors: results reused across calls?)"
                result.update(figures)
                result.update({"passed": not message, "message": message})
                if message:
                    return {"ok": True, "checks": results}  # the first failure is enough
        return {"ok": True, "checks": results}

    # ------------------------------------------------------------------------------------------
    def time(self, request):
        task = self.task(request["task"])
        size = request["size"]
        seed = int(request.get("seed", 1))
        warmup_ms = float(request.get("warmup_ms", 20.0))
        min_samples = int(request.get("min_samples", 10))
        max_samples = int(request.get("max_samples", 2000))
        max_seconds = float(request.get("max_seconds", 2.0))
        target_rel_ci = float(request.get("target_rel_ci", 0.01))
        flush = bool(request.get("flush_cache", True))

        reference = self.reference(request["reference"], task)
        harness = self.harness(task, reference)
        specs = request["variants"]
        runners = self.runners_for(specs, task)
        # Several input sets with different contents; every variant gets its own shared copies.
        seeds = [seed + 7919 * j for j in range(TIMING_SETS)]
        sets = [harness.inputs(size, s, reference.launch) for s in seeds]
        init = harness.init_inputs(seed) if task.kernelbench else []
        shapes_like = self.expected_outputs(harness, reference, size, seed, sets[0])
        timed = []
        for spec, runner in zip(specs, runners):
            mirror = [[v.clone() if isinstance(v, torch.Tensor) else v for v in values] for values in sets]
            reply, shared, slots = runner.load(self.kind(task), spec, task, size, seed, init, mirror, shapes_like,
                                               flush)
            verify = True
            if reply.get("shape_mismatch"):  # its parameters change the input shapes: inputs of its own
                mirror = [harness.inputs(size, s, spec["launch"]) for s in seeds]
                reply, shared, slots = runner.load(self.kind(task), spec, task, size, seed, init, mirror, [], flush)
                verify = False
            if not reply.get("ok"):
                return {"ok": False, "error": f"variant {spec['id']}: {reply.get('error') or reply.get('shape_mismatch')}"}
            tampered = describe_violations(f"variant {spec['id']}, when imported,", reply.get("tampered"))
            if tampered:
                return {"ok": False, "error": tampered}
            timed.append({"id": spec["id"], "runner": runner, "mirror": mirror, "shared": shared, "slots": slots,
                          "verify": verify, "calls": 0, "verified": 0, "samples": [], "wall": [], "last": None})
        for spare in self.spares:  # nothing else imports while variants are timed
            spare.ready()
        rng = random.Random(seed)
        generator = torch.Generator().manual_seed(seed)

        def call(entry):
            """One timed call of a variant on its next input set, perturbed first; other runners
            are stopped meanwhile. Verified when it is the variant's first call or, at random,
            one call in VERIFY_ONE_IN."""
            k = entry["calls"] % TIMING_SETS
            entry["calls"] += 1
            _perturb(generator, entry["mirror"][k], entry["shared"][k])
            self.synchronize()
            reply = entry["runner"].request({"op": "run", "set": k})  # the others are stopped
            if not reply.get("ok"):
                raise CandidateFailed(f"variant {entry['id']}: {reply.get('error')}")
            tampered = describe_violations(f"variant {entry['id']}, while timed,", reply.get("tampered"))
            if tampered:
                raise CandidateFailed(tampered)
            entry["last"] = (k, reply)
            if entry["calls"] == 1 or (entry["verified"] < VERIFY_MAX and rng.randrange(VERIFY_ONE_IN) == 0):
                check_call(entry)
            return reply

        def check_call(entry):
            if not entry["verify"] or entry["last"] is None:
                return
            k, reply = entry["last"]
            entry["verified"] += 1
            expected = self.expected_outputs(harness, reference, size, seed, entry["mirror"][k])
            message, _ = self.verdict(task, harness, reference, reply, entry["shared"][k], entry["mirror"][k],
                                      entry["slots"][k], expected, quick=True)
            if message:
                raise CandidateFailed(f"variant {entry['id']}: timed call {entry['calls']} (input set {k}): {message}")

        try:
            # Warm-up: Triton's JIT compile, first touch and clock ramp-up stay out of the numbers.
            for entry in timed:
                start = time.perf_counter()
                while entry["calls"] < 3 or (time.perf_counter() - start) * 1e3 < warmup_ms / len(timed):
                    call(entry)
                    if entry["calls"] > 1000:
                        break
            # Interleaved rounds in random order, so drift hits all variants alike.
            order = list(range(len(timed)))
            start = time.perf_counter()
            for _ in range(max_samples):
                rng.shuffle(order)
                for index in order:
                    entry = timed[index]
                    reply = call(entry)
                    entry["samples"].append(reply["ms"])
                    entry["wall"].append(reply["wall_ms"])
                precise = all(len(e["samples"]) >= min_samples and summarize(e["samples"])["rel_ci"] <= target_rel_ci
                              for e in timed)
                if precise or time.perf_counter() - start > max_seconds:
                    break
            for entry in timed:  # the last timed call of every variant is verified too
                check_call(entry)
        except CandidateFailed as e:
            return {"ok": False, "error": str(e)}
        results = []
        for entry in timed:
            stats = summarize(entry["samples"])
            stats["wall_ms"] = summarize(entry["wall"])["median_ms"]
            stats["verified_calls"] = entry["verified"]
            results.append({"id": entry["id"], "stats": stats})
        return {"ok": True, "results": results}

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

    def copy_bandwidth(self):
        """Device-to-device copy GB/s (bytes read + written), for the roofline (judge-side:
        no candidate code involved)."""
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
