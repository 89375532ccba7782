"""The task as the Python worker sees it: the resolved plan the orchestrator sends with every
request (docs/WORKER_PROTOCOL.md, "Plans"). Every expression of the manifest was evaluated by
the orchestrator, so nothing here parses a manifest or an expression: the worker reads no
project file besides the task's own modules (reference, input builder, KernelBench problem).
"""

DTYPES = {  # plan dtype -> torch dtype name
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "i8": "int8", "u8": "uint8", "i32": "int32", "u32": "uint32", "i64": "int64",
}


class TaskError(Exception):
    pass


class Task:
    """A TaskPlan (src/protocol/plan.h) read from its JSON."""

    def __init__(self, plan):
        python = plan.get("python")
        if not python:
            raise TaskError(f"task '{plan.get('name', '?')}' is not a Python task (no 'python' section in its plan)")
        self.name = plan.get("name", "")
        self.kind = python["kind"]                     # "args" | "launcher" | "kernelbench"
        self.kernelbench = self.kind == "kernelbench"
        self.args = plan.get("args", [])               # dicts: name dtype role init (no expressions)
        self.sizes = {s["name"]: dict(s["vars"]) for s in plan.get("sizes", [])}
        self.kernel = python.get("kernel", "")         # the task's entry point
        self.launcher = python.get("launcher") or None
        self.inputs = (python["inputs_file"], python["inputs_function"]) if self.launcher else None
        self.problem_file = python.get("problem_file", "")
        self.sources = list(python.get("sources", []))  # the task's own kernel files
        self.params = {k: int(v) for k, v in python.get("default_params", {}).items()}
        self._tolerances = {dtype: (t["atol"], t["rtol"]) for dtype, t in plan.get("dtype_tolerances", {}).items()}

    @property
    def path(self):
        """What error messages name: the problem file or the task."""
        return self.problem_file or self.name

    def tolerance_for(self, dtype):
        """(atol, rtol) of an output of this dtype name ("f32"); exact for unknown dtypes."""
        return self._tolerances.get(dtype, (0.0, 0.0))
