"""How one variant runs: a Triton kernel launched from the manifest's [[args]] and [launch] or
through the task's own launcher, a plain Python reference, or a KernelBench Model/ModelNew.

A runner makes the inputs of a seed (`inputs`) and a `Case` per variant and size, which holds
everything outside the timed region (its own input tensors, poisoned outputs, models):
`case.run()` is the timed call, `case.outputs()` what is compared.
"""

import hashlib
import importlib.util
import inspect
import math
import os
import sys

import torch

from kforge_task import DTYPES, TaskError

# Outputs start as NaN (floats) or this sentinel (integers), so an output the kernel never
# writes cannot match the reference by luck.
INT_POISON = 0x5A


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
# What every runner hands the session: inputs per seed, and a Case per variant and size.

class ShapeMismatch(Exception):
    def __init__(self, name):
        super().__init__(f"argument '{name}' has a different size under this variant's parameters")


def poison(tensor):
    if tensor.is_floating_point() or tensor.is_complex():
        tensor.fill_(float("nan"))
    else:
        tensor.fill_(INT_POISON)
    return tensor


def _as_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _to_device(value, device):
    return value.to(device) if isinstance(value, torch.Tensor) else value


class Case:
    """One variant at one problem size. Its tensors are its own: `load` copies a seed's input
    values into them (the same tensors every time, so a kernel that caches results by address or
    by "already called" meets new values in old buffers), `run` is the timed call, `outputs` what
    is compared, `scrub` poisons the outputs before the memory goes back to torch's allocator."""

    def __init__(self, run, outputs, input_names):
        self.run = run
        self.outputs = outputs
        self.input_names = input_names
        self.values = None    # the loaded inputs: tensors owned by this case, scalars
        self.originals = []   # what was loaded, to tell whether the inputs came back unchanged

    def load(self, values):
        self.originals = values
        if self.values is None:
            self.values = [v.clone() if isinstance(v, torch.Tensor) else v for v in values]
            return
        for i, (mine, theirs) in enumerate(zip(self.values, values)):
            if isinstance(mine, torch.Tensor):
                if mine.shape != theirs.shape:
                    raise ShapeMismatch(self.input_names(i))
                mine.copy_(theirs)
            else:
                self.values[i] = theirs

    def checked_inputs(self):
        """(name, tensor, loaded value) of the inputs that must come back unchanged."""
        return [(self.input_names(i), v, self.originals[i]) for i, v in enumerate(self.values or [])
                if isinstance(v, torch.Tensor)]

    def scrub(self):
        for out in self.outputs():
            if isinstance(out, torch.Tensor):
                poison(out)


# ----------------------------------------------------------------------------------------------
# Manifest tasks without a launcher: kforge launches the @triton.jit kernel from [[args]] and
# [launch]; a reference may be a plain function taking the same arguments.

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


def _scalar(arg, value):
    """A scalar argument's resolved value as the kernel takes it."""
    return float(value) if arg["dtype"] in ("f32", "f64") else int(value)


def _grid(launch):
    return tuple(max(1, int(g)) for g in launch["grid"])


def is_launchable(fn):
    """Triton's @jit (and its interpreter stand-in) launch as fn[grid](...)."""
    return hasattr(type(fn), "__getitem__") and not isinstance(fn, type)


def _signature_names(fn):
    inner = getattr(fn, "fn", fn)
    try:
        return list(inspect.signature(inner).parameters)
    except (TypeError, ValueError):
        return list(getattr(fn, "arg_names", []))


def _entry(module, name):
    if not hasattr(module, name):
        raise TaskError(f"the module defines no '{name}'")
    return getattr(module, name)


class ArgsCase(Case):
    """The kernel's argument list is the case's storage: inputs are copied into their slots,
    outputs keep what the last run left there (poisoned once, when allocated)."""

    def __init__(self, run, outputs, task, args, loaded):
        super().__init__(run, lambda: outputs, lambda i: task.args[loaded[i]]["name"])
        self.task = task
        self.args = args
        self.loaded = loaded

    def load(self, values):
        for i, value in zip(self.loaded, values):
            if self.args[i].shape != value.shape:
                raise ShapeMismatch(self.task.args[i]["name"])
            self.args[i].copy_(value)
        self.originals = values

    def checked_inputs(self):
        return [(self.task.args[i]["name"], self.args[i], value) for i, value in zip(self.loaded, self.originals)
                if self.task.args[i]["role"] == "input"]


class ManifestRunner:
    """Inputs from the manifest's distributions; the case launches fn[grid](*args, **tunables)
    with the tunables named like tl.constexpr parameters as keywords and num_warps/num_stages
    as launch options, or calls a plain reference function with the same arguments (it fills
    the outputs, or returns them in output order)."""

    LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas")

    def __init__(self, task, device):
        self.task = task
        self.device = device
        self.loaded = [i for i, a in enumerate(task.args) if a["role"] in ("input", "inout")]

    def inputs(self, size, seed, launch):
        del size  # `launch` is the plan of the variant at that size
        values = []
        for i in self.loaded:
            arg = self.task.args[i]
            shape = list(launch["shapes"][i])
            values.append(make_input(arg, math.prod(shape), seed, i).reshape(shape).to(self.device))
        return values

    def case(self, variant, size, seed):
        del seed  # the inputs carry the randomness
        del size  # the variant's launch plan is at the request's size
        task, launch = self.task, variant.launch
        args = []
        for i, arg in enumerate(task.args):
            if arg["role"] == "scalar":
                args.append(_scalar(arg, launch["scalars"][i]))
            else:
                dtype = getattr(torch, DTYPES[arg["dtype"]])
                args.append(poison(torch.empty(list(launch["shapes"][i]), dtype=dtype, device=self.device)))
        outputs = [args[i] for i, a in enumerate(task.args) if a["role"] in ("output", "inout")]
        fn = _entry(variant.module, variant.entry)
        if is_launchable(fn):
            grid = _grid(launch)
            names = set(_signature_names(fn))
            kwargs = {k: int(v) for k, v in variant.params.items() if k in names or k in self.LAUNCH_OPTIONS}

            def run():
                fn[grid](*args, **kwargs)
        else:
            def run():
                returned = fn(*args)
                if returned is not None:
                    for out, value in zip(outputs, _as_list(returned)):
                        out.copy_(value.reshape(out.shape))
        return ArgsCase(run, outputs, task, args, self.loaded)

    def output_names(self):
        return [a["name"] for a in self.task.args if a["role"] in ("output", "inout")]

    def tolerance(self, index, expected):
        del expected
        dtypes = [a["dtype"] for a in self.task.args if a["role"] in ("output", "inout")]
        return self.task.tolerance_for(dtypes[index])


# ----------------------------------------------------------------------------------------------
# Triton tasks with their own host code: [task] inputs builds the inputs, [task] launcher
# launches the kernel and returns the outputs.

def _accepts(fn, keyword):
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == keyword or p.kind == inspect.Parameter.VAR_KEYWORD for p in parameters)


def launcher_function(task, module, entry, params):
    """What the runner calls for a launcher task: the launcher with every tunable as a keyword,
    or (for a [reference]-style entry) the function with the inputs alone."""
    is_launcher = entry == task.kernel
    fn = _entry(module, task.launcher if is_launcher else entry)
    kwargs = {k: int(v) for k, v in params.items()} if is_launcher else {}
    if is_launcher:
        unknown = [k for k in kwargs if not _accepts(fn, k)]
        if unknown:
            raise TaskError(f"launcher '{task.launcher}' takes no keyword {', '.join(unknown)}; "
                            "add the tunables to its parameters")
    return fn, kwargs


class ArgsLauncher:
    """The runner's side of a manifest-launched kernel on one input set: read-only inputs are the
    shared tensors themselves; in/out and output arguments are the runner's own buffers, refilled
    (in/out) or poisoned (outputs) by `prepare`, outside the timed region, before every call."""

    def __init__(self, task, module, entry, params, launch, values, device):
        self.args, self.refills, self.outs = [], [], []
        loaded = iter(values)
        for i, arg in enumerate(task.args):
            if arg["role"] == "scalar":
                self.args.append(_scalar(arg, launch["scalars"][i]))
                continue
            shape = list(launch["shapes"][i])
            given = next(loaded) if arg["role"] in ("input", "inout") else None
            if given is not None and list(given.shape) != shape:
                raise ShapeMismatch(arg["name"])
            if arg["role"] == "input":
                self.args.append(given)
                continue
            own = torch.empty(shape, dtype=getattr(torch, DTYPES[arg["dtype"]]), device=device)
            self.args.append(own)
            self.outs.append(own)
            if given is not None:
                self.refills.append((own, given))
        fn = _entry(module, entry)
        outs = self.outs
        if is_launchable(fn):
            grid = _grid(launch)
            names = set(_signature_names(fn))
            kwargs = {k: int(v) for k, v in params.items() if k in names or k in ManifestRunner.LAUNCH_OPTIONS}
            self.launch = lambda: fn[grid](*self.args, **kwargs)
        else:
            def launch():
                returned = fn(*self.args)
                if returned is not None:
                    for out, value in zip(outs, _as_list(returned)):
                        out.copy_(value.reshape(out.shape))
            self.launch = launch

    def prepare(self):
        for out in self.outs:
            poison(out)
        for own, given in self.refills:
            own.copy_(given)

    def outputs(self):
        return self.outs


class LauncherRunner:
    """The input builder comes from the task's own files (never from a candidate, which cannot
    change what it is given); it is called with the size's variables as keywords (and `device`
    when it takes one) after seeding torch with the seed. The launcher is called with the inputs
    and every tunable as a keyword; a [reference] function is called with the inputs alone."""

    def __init__(self, task, device, load_trusted):
        self.task = task
        self.device = device
        file, function = task.inputs
        self.builder = _entry(load_trusted(file), function)

    def inputs(self, size, seed, launch):
        del launch  # inputs depend on the size only
        if size not in self.task.sizes:
            raise TaskError(f"{self.task.path}: no problem size named '{size}'")
        kwargs = dict(self.task.sizes[size])
        if _accepts(self.builder, "device"):
            kwargs["device"] = self.device
        torch.manual_seed(int(seed))
        try:
            built = self.builder(**kwargs)
        except TypeError as e:
            file, function = self.task.inputs
            variables = ", ".join(self.task.sizes[size])
            raise TaskError(f"{file}: input builder {function}({', '.join(kwargs)}) failed: {e}; it takes the size "
                            f"variables ({variables}) as keywords, and device if it wants one") from None
        return [_to_device(v, self.device) for v in _as_list(built)]

    def case(self, variant, size, seed):
        del size, seed
        is_launcher = variant.entry == self.task.kernel
        fn = _entry(variant.module, self.task.launcher if is_launcher else variant.entry)
        kwargs = {k: int(v) for k, v in variant.params.items()} if is_launcher else {}
        if is_launcher:
            unknown = [k for k in kwargs if not _accepts(fn, k)]
            if unknown:
                raise TaskError(f"launcher '{self.task.launcher}' takes no keyword {', '.join(unknown)}; "
                                "add the tunables to its parameters")
        names = _signature_names(fn)
        result = {}

        def run():
            result["out"] = fn(*case.values, **kwargs)

        def outputs():
            return _as_list(result.get("out"))

        case = Case(run, outputs, lambda i: names[i] if i < len(names) else f"input {i}")
        return case

    def output_names(self):
        return None  # "output 0", "output 1", ...

    def tolerance(self, index, expected):
        del index
        return self.task.tolerance_for(dtype_name(expected))


def dtype_name(tensor):
    """The manifest's name of a tensor's dtype ("f32"), for the default tolerances."""
    if not isinstance(tensor, torch.Tensor):
        return None
    for name, torch_name in DTYPES.items():
        if getattr(torch, torch_name, None) == tensor.dtype:
            return name
    return None


# ----------------------------------------------------------------------------------------------
# KernelBench problems.

def model_class(module):
    if hasattr(module, "ModelNew"):
        return module.ModelNew
    if hasattr(module, "Model"):
        return module.Model
    raise TaskError("the candidate defines neither ModelNew nor Model")


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
        return model_class(module)

    def init_inputs(self, seed):
        torch.manual_seed(int(seed))
        return list(self.problem.get_init_inputs())

    def inputs(self, size, seed, launch):
        del size, launch  # one implicit size
        torch.manual_seed(int(seed))
        return [_to_device(x, self.device) for x in self.problem.get_inputs()]

    def case(self, variant, size, seed):
        del size
        torch.manual_seed(int(seed))
        init = list(self.problem.get_init_inputs())
        torch.manual_seed(int(seed))  # the same weights for Model and ModelNew
        model = self.model_class(variant.module)(*init).to(self.device).eval()
        result = {}

        def run():
            with torch.no_grad():
                result["out"] = model(*case.values)

        case = Case(run, lambda: _as_list(result.get("out")), lambda i: f"input {i}")
        return case

    def output_names(self):
        return None

    def tolerance(self, index, expected):
        del index
        return self.task.tolerance_for(dtype_name(expected))
