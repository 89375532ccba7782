"""How one variant runs: a Triton kernel launched from the manifest's [[args]] and [launch], a
plain Python reference called with the same arguments, or a KernelBench Model/ModelNew.

A runner prepares everything outside the timed region (inputs, poisoned outputs, models) and
returns a `Prepared`: `run()` is the timed call, `outputs()` what is compared, `inputs` what
must come back unchanged.
"""

import hashlib
import importlib.util
import inspect
import os
import sys

import torch

from kforge_task import DTYPES, TaskError, eval_expr, eval_int

# Outputs start as NaN (floats) or this sentinel (integers), so an output the kernel never
# writes cannot match the reference by luck.
INT_POISON = 0x5A


class Prepared:
    def __init__(self, run, outputs, inputs):
        self.run = run
        self.outputs = outputs
        self.inputs = inputs  # [(name, tensor, original copy)]


def load_module(path, sandbox):
    """Imports a candidate from a copy in the sandbox, under a name unique to its content, so
    two candidates never share a module and Triton's source lookups find a real file."""
    with open(path, "rb") as f:
        data = f.read()
    name = "kforge_candidate_" + hashlib.sha256(data).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name]
    copy = os.path.join(sandbox, name + ".py")
    with open(copy, "wb") as f:
        f.write(data)
    spec = importlib.util.spec_from_file_location(name, copy)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


# ----------------------------------------------------------------------------------------------
# Manifest tasks (Triton kernels, Python references).

def _generator(seed, index):
    g = torch.Generator()
    g.manual_seed((int(seed) * 1000003 + index) & 0x7FFFFFFFFFFFFFFF)
    return g


def _parse_init(init):
    name, _, rest = init.partition("(")
    values = [float(v) for v in rest.rstrip(")").split(",") if v.strip()] if rest else []
    return name.strip(), values


def make_input(arg, count, seed, index):
    """A CPU tensor of `count` elements following the manifest's init distribution."""
    dtype = getattr(torch, DTYPES[arg["dtype"]])
    kind, values = _parse_init(arg["init"])
    g = _generator(seed, index)
    if kind == "uniform":
        lo, hi = values or (-1.0, 1.0)
        data = torch.rand(count, generator=g, dtype=torch.float64) * (hi - lo) + lo
    elif kind == "normal":
        mean, std = values or (0.0, 1.0)
        data = torch.randn(count, generator=g, dtype=torch.float64) * std + mean
    elif kind == "randint":
        lo, hi = values or (0, 100)
        data = torch.randint(int(lo), int(hi) + 1, (count,), generator=g, dtype=torch.int64)
    elif kind == "ones":
        data = torch.ones(count, dtype=torch.float64)
    elif kind == "arange":
        data = torch.arange(count, dtype=torch.float64)
    else:
        raise TaskError(f"argument '{arg['name']}': unknown init '{arg['init']}'")
    if dtype == torch.uint32:  # torch has few uint32 kernels: generate as int64, then narrow
        return data.to(torch.int64).to(torch.uint32)
    return data.to(dtype)


def poison(tensor):
    if tensor.is_floating_point():
        tensor.fill_(float("nan"))
    else:
        tensor.fill_(INT_POISON)
    return tensor


def build_args(task, env, seed, device):
    """Kernel arguments in manifest order: device tensors (shaped as the manifest says, flat when
    one dimension) and Python scalars."""
    values = []
    for index, arg in enumerate(task.args):
        if arg["role"] == "scalar":
            value = eval_expr(arg["value"], env)
            values.append(float(value) if arg["dtype"] in ("f32", "f64") else int(value))
            continue
        shape = [eval_int(s, env) for s in arg["shape"]]
        count = 1
        for s in shape:
            count *= s
        if arg["role"] == "output":
            tensor = poison(torch.empty(count, dtype=getattr(torch, DTYPES[arg["dtype"]])))
        else:
            tensor = make_input(arg, count, seed, index)
        values.append(tensor.reshape(shape).to(device))
    return values


def is_launchable(fn):
    """Triton's @jit (and its interpreter stand-in) launch as fn[grid](...)."""
    return hasattr(type(fn), "__getitem__") and not isinstance(fn, type)


def _signature_names(fn):
    inner = getattr(fn, "fn", fn)
    try:
        return list(inspect.signature(inner).parameters)
    except (TypeError, ValueError):
        return list(getattr(fn, "arg_names", []))


class ManifestRunner:
    """Triton tasks: the entry is a @triton.jit kernel launched on the manifest's grid with the
    tunables as constexpr keywords and num_warps/num_stages as launch options; a reference may
    instead be a plain function taking the same arguments (it fills the outputs, or returns
    them in output order)."""

    LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas")

    def __init__(self, task, device):
        self.task = task
        self.device = device

    def entry(self, module, name):
        if not hasattr(module, name):
            raise TaskError(f"the module defines no '{name}'")
        return getattr(module, name)

    def prepare(self, variant, size, seed, shared_inputs=None):
        task = self.task
        env = task.bindings(size, variant.params)
        args = build_args(task, env, seed, self.device)
        if shared_inputs is not None:  # the very same input values as the reference had
            for i, arg in enumerate(task.args):
                if arg["role"] in ("input", "inout"):
                    if args[i].shape != shared_inputs[i].shape:
                        raise ShapeMismatch(arg["name"])
                    args[i].copy_(shared_inputs[i])
        fn = self.entry(variant.module, variant.entry)
        outputs = [args[i] for i, a in enumerate(task.args) if a["role"] in ("output", "inout")]
        if is_launchable(fn):
            grid = tuple(max(1, eval_int(g, env)) for g in task.grid)
            names = set(_signature_names(fn))
            kwargs = {k: int(v) for k, v in variant.params.items() if k in names or k in self.LAUNCH_OPTIONS}

            def run():
                fn[grid](*args, **kwargs)
        else:
            def run():
                returned = fn(*args)
                if returned is None:
                    return
                returned = returned if isinstance(returned, (tuple, list)) else (returned,)
                for out, value in zip(outputs, returned):
                    out.copy_(value.reshape(out.shape))
        inputs = [(a["name"], args[i], args[i].clone()) for i, a in enumerate(task.args) if a["role"] == "input"]
        return Prepared(run, lambda: outputs, inputs), args

    def output_names(self):
        return [a["name"] for a in self.task.args if a["role"] in ("output", "inout")]

    def output_dtypes(self):
        return [a["dtype"] for a in self.task.args if a["role"] in ("output", "inout")]


class ShapeMismatch(Exception):
    def __init__(self, name):
        super().__init__(f"argument '{name}' has a different size under this variant's parameters")


# ----------------------------------------------------------------------------------------------
# KernelBench problems.

def _to_device(value, device):
    if isinstance(value, torch.Tensor):
        return value.to(device)
    return value


class KernelBenchRunner:
    """Model(*get_init_inputs())(*get_inputs()) from the problem file is the reference; a
    candidate module's ModelNew (its Model when it has none: the baseline) is compared on the
    same inputs, with weights drawn from the same seed."""

    def __init__(self, task, device, problem_module):
        self.task = task
        self.device = device
        self.problem = problem_module
        for name in ("Model", "get_inputs", "get_init_inputs"):
            if not hasattr(problem_module, name):
                raise TaskError(f"{task.path}: a KernelBench problem defines {name}")

    def model_class(self, module):
        if hasattr(module, "ModelNew"):
            return module.ModelNew
        if hasattr(module, "Model"):
            return module.Model
        raise TaskError("the candidate defines neither ModelNew nor Model")

    def prepare(self, variant, size, seed, shared_inputs=None):
        del size  # one implicit size
        torch.manual_seed(int(seed))
        init = list(self.problem.get_init_inputs())
        inputs = [_to_device(x, self.device) for x in self.problem.get_inputs()]
        if shared_inputs is not None:
            for mine, theirs in zip(inputs, shared_inputs):
                if isinstance(mine, torch.Tensor):
                    mine.copy_(theirs)
        torch.manual_seed(int(seed))  # same weights for Model and ModelNew
        model = self.model_class(variant.module)(*init).to(self.device).eval()
        result = {}

        def run():
            with torch.no_grad():
                result["out"] = model(*inputs)

        def outputs():
            out = result.get("out")
            return list(out) if isinstance(out, (tuple, list)) else [out]

        checked = [(f"input {i}", x, x.clone()) for i, x in enumerate(inputs) if isinstance(x, torch.Tensor)]
        return Prepared(run, outputs, checked), inputs

    def output_names(self):
        return None  # "output 0", "output 1", ...

    def output_dtypes(self):
        return None
