"""The parts of a kforge task the Python worker needs: manifest, expressions, inputs.

Mirrors src/task (docs/TASK_FORMAT.md) for Triton tasks: the same [[args]], [launch] grid,
[params], [tolerance] and [[sizes]]. A KernelBench problem (.py) has no manifest; see
kernelbench_task().
"""

import ast
import math
import os
import tomllib

DTYPES = {  # manifest dtype -> torch dtype name
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "i8": "int8", "u8": "uint8", "i32": "int32", "u32": "uint32", "i64": "int64",
}
# Default tolerances by output dtype, as in src/task/task.cpp (atol, rtol).
DEFAULT_TOLERANCE = {
    "f16": (1e-2, 1e-2), "bf16": (2e-2, 2e-2), "f32": (1e-4, 1e-4), "f64": (1e-9, 1e-9),
}


class TaskError(Exception):
    pass


# ----------------------------------------------------------------------------------------------
# Expressions: the grammar of src/task/expr.h, evaluated on a Python AST after translating the
# C-style operators. Only arithmetic, comparisons, boolean logic and the named functions are
# allowed; `/` truncates when both sides are integers, as in C.

def _c_div(a, b):
    if isinstance(a, int) and isinstance(b, int):
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    return a / b


def _c_mod(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a - _c_div(a, b) * b
    return math.fmod(a, b)


_FUNCTIONS = {
    "ceil_div": lambda a, b: -(-a // b),
    "min": min, "max": max, "abs": abs,
    "pow2": lambda a: 1 << int(a),
    "log2": lambda a: int(a).bit_length() - 1 if isinstance(a, int) else math.log2(a),
}


def _translate(text):
    out, i = [], 0
    while i < len(text):
        two = text[i:i + 2]
        if two == "&&":
            out.append(" and "); i += 2
        elif two == "||":
            out.append(" or "); i += 2
        elif text[i] == "!" and two != "!=":
            out.append(" not "); i += 1
        else:
            out.append(text[i]); i += 1
    return "".join(out)


def _eval_node(node, env, text):
    if isinstance(node, ast.Expression):
        return _eval_node(node.body, env, text)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise TaskError(f"expression '{text}': unknown identifier '{node.id}' (known: {', '.join(sorted(env))})")
        return env[node.id]
    if isinstance(node, ast.UnaryOp):
        value = _eval_node(node.operand, env, text)
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.UAdd):
            return value
        if isinstance(node.op, ast.Not):
            return int(not value)
    if isinstance(node, ast.BinOp):
        a, b = _eval_node(node.left, env, text), _eval_node(node.right, env, text)
        ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
               ast.Div: lambda: _c_div(a, b), ast.Mod: lambda: _c_mod(a, b), ast.Pow: lambda: a ** b}
        if type(node.op) in ops:
            return ops[type(node.op)]()
    if isinstance(node, ast.BoolOp):
        values = [_eval_node(v, env, text) for v in node.values]
        return int(all(values) if isinstance(node.op, ast.And) else any(values))
    if isinstance(node, ast.Compare):
        left = _eval_node(node.left, env, text)
        for op, right_node in zip(node.ops, node.comparators):
            right = _eval_node(right_node, env, text)
            ok = {ast.Lt: left < right, ast.LtE: left <= right, ast.Gt: left > right,
                  ast.GtE: left >= right, ast.Eq: left == right, ast.NotEq: left != right}.get(type(op))
            if not ok:
                return 0
            left = right
        return 1
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS:
        return _FUNCTIONS[node.func.id](*[_eval_node(a, env, text) for a in node.args])
    raise TaskError(f"expression '{text}': unsupported syntax")


def eval_expr(expression, env):
    text = str(expression)
    try:
        tree = ast.parse(_translate(text).strip(), mode="eval")
    except SyntaxError as e:
        raise TaskError(f"expression '{text}': {e.msg}") from None
    return _eval_node(tree, env, text)


def eval_int(expression, env):
    return int(eval_expr(expression, env))


# ----------------------------------------------------------------------------------------------
# Tasks.

class Task:
    """What the worker needs from a manifest (or from a KernelBench problem)."""

    def __init__(self):
        self.path = ""
        self.kernelbench = False
        self.args = []          # dicts: name dtype role shape init value
        self.grid = ["1", "1", "1"]
        self.params = {}        # name -> default
        self.tolerance = None   # (atol, rtol) or None for the dtype defaults
        self.sizes = {}         # name -> {var: value}
        self.first_size = "default"
        self.kernel = ""        # the @triton.jit entry ([task] kernel)
        self.launcher = None    # [task] launcher: function of the kernel's module, or None
        self.inputs = None      # [task] inputs: (file, function) of the input builder, or None

    def bindings(self, size_name, params):
        if size_name not in self.sizes:
            raise TaskError(f"{self.path}: no problem size named '{size_name}'")
        env = dict(self.sizes[size_name])
        env.update(self.params)
        env.update({k: int(v) for k, v in params.items()})
        return env

    def tolerance_for(self, dtype):
        if self.tolerance is not None:
            return self.tolerance
        return DEFAULT_TOLERANCE.get(dtype, (0.0, 0.0))


def _number(value):
    return value if isinstance(value, (int, float)) else str(value)


def load_manifest(path):
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    task = Task()
    task.path = path
    section = doc.get("task", {})
    task.kernel = section.get("kernel", "")
    if "launcher" in section:
        task.launcher = section["launcher"]
        file, _, function = section["inputs"].rpartition(":")
        folder = os.path.dirname(os.path.abspath(path))
        task.inputs = (os.path.join(folder, file or section["source"]), function)
    for arg in doc.get("args", []):
        role = arg.get("role", "input")
        dtype = arg.get("dtype", "f32")
        task.args.append({
            "name": arg["name"], "dtype": dtype, "role": role,
            "shape": [_number(s) for s in arg.get("shape", [])],
            "init": arg.get("init", "randint(0,100)" if dtype not in DEFAULT_TOLERANCE else "uniform(-1,1)"),
            "value": _number(arg.get("value", "0")),
        })
    grid = [_number(g) for g in doc.get("launch", {}).get("grid", ["1"])]
    task.grid = (grid + ["1", "1", "1"])[:3]
    for name, spec in doc.get("params", {}).items():
        if isinstance(spec, dict):
            task.params[name] = int(spec.get("default", spec["values"][0]))
        else:
            task.params[name] = int(spec[0])
    tol = doc.get("tolerance")
    if tol:
        task.tolerance = (float(tol["atol"]), float(tol["rtol"]))
    for i, size in enumerate(doc.get("sizes", [])):
        name = size.get("name", f"size{i}")
        env = {}
        for var, value in size.items():
            if var != "name":
                env[var] = eval_int(value, env)
        task.sizes[name] = env
        if i == 0:
            task.first_size = name
    return task


def kernelbench_task(path):
    """KernelBench problems: outputs of Model(*get_init_inputs())(*get_inputs()) compared with
    KernelBench's own tolerance (1e-2), one size named "default" (src/task/kernelbench.cpp)."""
    task = Task()
    task.path = path
    task.kernelbench = True
    task.sizes = {"default": {}}
    task.tolerance = (1e-2, 1e-2)
    return task


def load_task(path):
    if os.path.splitext(path)[1] == ".py":
        return kernelbench_task(path)
    return load_manifest(path)
