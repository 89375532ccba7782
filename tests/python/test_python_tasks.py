"""End-to-end tests of Triton and KernelBench-format tasks through the kforge binaries, on the
CPU (Triton interpreter, eager PyTorch), plus unit tests of how the worker reads its task plan.

Run by ctest (python_worker) through scripts/python-tests.sh, which skips when .venv is absent.
KFORGE_BIN names the folder holding kforge and kforge-worker.
"""

import json
import os
import re
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))

from kforge_task import Task, TaskError  # noqa: E402

KFORGE = os.path.abspath(os.path.join(os.environ.get("KFORGE_BIN", os.path.join(REPO, "build", "bin")), "kforge"))
TRITON = os.path.join(REPO, "examples", "triton")
KERNELBENCH = os.path.join(REPO, "examples", "kernelbench")


def kforge(*args, timeout=600):
    env = dict(os.environ, KFORGE_PYTHON=sys.executable)
    env.setdefault("KFORGE_CACHE_DIR", os.path.join(os.environ.get("TMPDIR", "/tmp"), "kforge-pytest-cache"))
    done = subprocess.run([KFORGE, *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=REPO)
    return done


def kforge_env(extra_env, *args, cwd=REPO, timeout=600):
    env = dict(os.environ, KFORGE_PYTHON=sys.executable, **extra_env)
    env.setdefault("KFORGE_CACHE_DIR", os.path.join(os.environ.get("TMPDIR", "/tmp"), "kforge-pytest-cache"))
    return subprocess.run([KFORGE, *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)


def bench_env(extra_env, task, *extra, cwd=REPO):
    done = kforge_env(extra_env, "bench", task, "--json", "--max-seconds", "0.2", *extra, cwd=cwd)
    assert done.stdout.strip(), done.stderr
    return json.loads(done.stdout)[0]


def bench(task, *extra):
    done = kforge("bench", task, "--json", "--max-seconds", "0.2", *extra)
    assert done.stdout.strip(), done.stderr
    return json.loads(done.stdout)[0]


# ----------------------------------------------------------------------------------------------
# The plan the worker is sent (docs/WORKER_PROTOCOL.md): read as it is, no manifest parsed.

PLAN = {
    "name": "layernorm", "language": "triton",
    "args": [{"name": "x", "dtype": "f32", "role": "input", "init": "uniform(-1,1)"}],
    "dtype_tolerances": {"f32": {"atol": 5e-2, "rtol": 1e-2}, "f16": {"atol": 1e-2, "rtol": 1e-2}},
    "sizes": [{"name": "small", "vars": {"rows": 4, "cols": 64}}],
    "python": {"kind": "launcher", "kernel": "layernorm_kernel", "launcher": "layernorm",
               "inputs_file": "/task/layernorm_ref.py", "inputs_function": "make_inputs",
               "problem_file": "", "sources": ["/task/layernorm.py"], "default_params": {"BLOCK": 64}},
}


def test_the_worker_reads_the_task_from_its_plan():
    task = Task(PLAN)
    assert task.kind == "launcher" and task.launcher == "layernorm" and task.kernel == "layernorm_kernel"
    assert task.inputs == ("/task/layernorm_ref.py", "make_inputs")
    assert task.sizes == {"small": {"rows": 4, "cols": 64}} and task.params == {"BLOCK": 64}
    assert task.tolerance_for("f32") == (5e-2, 1e-2) and task.tolerance_for("i32") == (0.0, 0.0)
    native = {k: v for k, v in PLAN.items() if k != "python"}
    with pytest.raises(TaskError, match="not a Python task"):
        Task(native)


def test_the_worker_has_no_manifest_or_expression_parser():
    import kforge_task
    source = open(kforge_task.__file__).read()
    assert "tomllib" not in source and "ast.parse" not in source


# ----------------------------------------------------------------------------------------------
# Triton tasks in interpreter mode.

@pytest.mark.parametrize("name", ["vector_add", "softmax", "matmul", "layernorm"])
def test_triton_example_is_correct_and_timed(name):
    result = bench(os.path.join(TRITON, name, "interpret.kforge.toml"))
    assert result["status"] == "correct", result["message"]
    assert result["timing"]["median_ms"] > 0
    assert result["device"]["name"] == "cpu (Triton interpreter)"


def test_triton_kernel_launched_from_args_without_a_launcher():
    result = bench(os.path.join(REPO, "tests", "kernels", "triton_args", "kforge.toml"), "-p", "BLOCK=256")
    assert result["status"] == "correct", result["message"]
    assert len(result["checks"]) == 4  # 2 sizes x 2 seeds


def test_launcher_without_a_tunable_keyword_is_reported(tmp_path):
    source = open(os.path.join(TRITON, "vector_add", "vector_add.py")).read()
    rigid = tmp_path / "rigid.py"
    rigid.write_text(source.replace("def add(a, b, BLOCK=1024, num_warps=4):", "def add(a, b, BLOCK=1024):")
                     .replace("num_warps=num_warps)", "num_warps=4)"))
    result = bench(os.path.join(TRITON, "vector_add", "interpret.kforge.toml"), "--source", str(rigid))
    assert result["status"] != "correct"
    assert "launcher 'add' takes no keyword num_warps" in result["message"], result["message"]


def test_triton_tunables_reach_the_kernel_and_the_grid():
    result = bench(os.path.join(TRITON, "matmul", "interpret.kforge.toml"),
                   "-p", "BLOCK_M=16", "-p", "BLOCK_N=64", "-p", "BLOCK_K=16", "-p", "GROUP_M=4", "-p", "num_warps=2")
    assert result["status"] == "correct", result["message"]


def test_input_builder_with_other_parameter_names_is_explained(tmp_path):
    folder = os.path.join(TRITON, "vector_add")
    source = open(os.path.join(folder, "vector_add.py")).read()
    (tmp_path / "vector_add.py").write_text(source.replace("def make_inputs(n, device):", "def make_inputs(count, device):")
                                            .replace("torch.rand(n,", "torch.rand(count,"))
    (tmp_path / "kforge.toml").write_text(open(os.path.join(folder, "interpret.kforge.toml")).read())
    result = bench(str(tmp_path / "kforge.toml"))
    assert result["status"] == "runtime_error"
    assert f"{tmp_path}/vector_add.py: input builder make_inputs(n, device) failed" in result["message"]
    assert "it takes the size variables (n) as keywords" in result["message"]


def test_wrong_triton_kernel_is_incorrect(tmp_path):
    source = open(os.path.join(TRITON, "vector_add", "vector_add.py")).read()
    bad = tmp_path / "bad.py"
    bad.write_text(source.replace("a + b, mask", "a - b, mask"))
    result = bench(os.path.join(TRITON, "vector_add", "interpret.kforge.toml"), "--source", str(bad))
    assert result["status"] == "incorrect"
    assert "output 0: " in result["message"] and "elements differ" in result["message"]


def test_kernel_that_writes_nothing_is_incorrect(tmp_path):
    source = open(os.path.join(TRITON, "vector_add", "vector_add.py")).read()
    lazy = tmp_path / "lazy.py"
    lazy.write_text(source.replace("    tl.store(c_ptr + offsets, a + b, mask=mask)\n", "    pass\n"))
    result = bench(os.path.join(TRITON, "vector_add", "interpret.kforge.toml"), "--source", str(lazy))
    assert result["status"] == "incorrect"
    # Whatever torch.empty returned in the runner (never an answer: the runner holds none); a few
    # leftover values may fall within the tolerance of an expected value near zero.
    differ = re.search(r"(\d+) elements differ", result["message"])
    assert differ and int(differ.group(1)) > 4000, result["message"]


def test_syntax_error_is_a_compile_error(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import triton\ndef add_kernel(:\n")
    result = bench(os.path.join(TRITON, "vector_add", "interpret.kforge.toml"), "--source", str(broken))
    assert result["status"] == "compile_error"
    assert "vector_add.py:2: error: SyntaxError" in result["message"]


def test_optimize_tunes_a_triton_kernel(tmp_path):
    done = kforge("optimize", os.path.join(TRITON, "vector_add", "interpret.kforge.toml"), "-g", "1", "-p", "3",
                  "--llm", "none", "--seed", "3", "--max-seconds", "0.2", "--runs-dir", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)[0]
    assert summary["candidates"] >= 2
    assert os.path.exists(summary["report"])


def test_optimize_times_a_pytorch_reference_eager_and_compiled(tmp_path):
    done = kforge("optimize", os.path.join(TRITON, "layernorm", "interpret.kforge.toml"), "-g", "1", "-p", "1",
                  "--llm", "none", "--seed", "5", "--max-seconds", "0.2", "--runs-dir", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    baselines = json.loads(done.stdout)[0]["baselines"]
    assert baselines["triton_ms"] > 0 and baselines["eager_ms"] > 0 and baselines["compile_ms"] > 0, baselines


# ----------------------------------------------------------------------------------------------
# KernelBench-format problems.

def test_detect_lists_kernelbench_problems():
    done = kforge("detect", KERNELBENCH)
    assert done.returncode == 0, done.stderr
    for problem in ("bias_gelu.py", "residual_layernorm.py", "scaled_softmax.py"):
        assert f"kernelbench/{problem}:" in done.stdout
    assert "3 kernels found" in done.stdout


def test_kernelbench_problem_benches_against_itself():
    result = bench(os.path.join(KERNELBENCH, "scaled_softmax.py"))
    assert result["status"] == "correct", result["message"]
    assert result["device"]["name"] == "cpu (eager)"


def test_kernelbench_candidate_is_checked_against_model():
    problem = os.path.join(KERNELBENCH, "bias_gelu.py")
    good = bench(problem, "--source", os.path.join(KERNELBENCH, "candidates", "bias_gelu_torch.py"))
    assert good["status"] == "correct", good["message"]


def test_wrong_kernelbench_candidate_is_incorrect(tmp_path):
    source = open(os.path.join(KERNELBENCH, "candidates", "bias_gelu_torch.py")).read()
    bad = tmp_path / "relu.py"
    bad.write_text(source.replace('gelu(x + self.bias, approximate="tanh")', "relu(x + self.bias)"))
    result = bench(os.path.join(KERNELBENCH, "bias_gelu.py"), "--source", str(bad))
    assert result["status"] == "incorrect"
    assert "output 0" in result["message"]


def test_candidate_that_edits_its_input_is_rejected(tmp_path):
    bad = tmp_path / "inplace.py"
    bad.write_text(open(os.path.join(KERNELBENCH, "scaled_softmax.py")).read() +
                   "\n\nclass ModelNew(Model):\n    def forward(self, x):\n"
                   "        x.mul_(self.scale)\n        return torch.softmax(x, dim=-1)\n")
    result = bench(os.path.join(KERNELBENCH, "scaled_softmax.py"), "--source", str(bad))
    assert result["status"] == "incorrect"
    assert "input 'input 0' was modified" in result["message"]


# ----------------------------------------------------------------------------------------------
# Planted cheats (tests/kernels/cheats_python/README.md): each must be caught, and say how.

CHEATS = os.path.join(REPO, "tests", "kernels", "cheats_python")


# The KernelBench cheats are candidates of a small copy of examples/kernelbench/bias_gelu.py.
SMALL_PROBLEM = os.path.join(CHEATS, "small_bias_gelu.py")


@pytest.mark.parametrize("cheat, task, caught_by", [
    ("cached_output", "triton", "results reused across calls"),
    ("stale_reference", "triton", "elements differ"),
    ("edits_input", "triton", "input 'a' was modified"),
    ("patched_timer", "triton", "replaced torch.cuda.Event.elapsed_time, time.perf_counter"),
    ("patched_reference", "kernelbench", "replaced torch.nn.functional.gelu"),
    ("memoized_model", "kernelbench", "results reused across calls"),
    # The judge/runner split: the runner holds no reference output, no state that differs
    # between checks and timed calls, and its timed calls are verified on perturbed inputs.
    ("stack_walk", "kernelbench", "elements differ"),
    ("phase_state", "kernelbench", "elements differ"),
    # Zeros from the patched model: the first mismatch is wherever the reference is not 0.
    ("patched_model", "kernelbench", r"elements differ; first at \[\d+\]: got 0,"),
    ("memo_data_ptr", "kernelbench", "timed call"),
    ("call_count", "triton", "timed call"),
])
def test_planted_python_cheat_is_caught(cheat, task, caught_by):
    manifest = os.path.join(TRITON, "vector_add", "interpret.kforge.toml") if task == "triton" else SMALL_PROBLEM
    result = bench(manifest, "--source", os.path.join(CHEATS, cheat + ".py"))
    assert result["status"] != "correct", result
    assert re.search(caught_by, result["message"]), result["message"]  # the texts are patterns


# ----------------------------------------------------------------------------------------------
# Containment: nothing a candidate does reaches kforge, the harness or outlives its runner. Each
# test skips only when the worker's own report says the isolation it needs is absent here.

def isolation():
    done = subprocess.run([sys.executable, os.path.join(REPO, "python", "kforge_worker.py"), "--isolation"],
                          capture_output=True, text=True, timeout=120)
    return json.loads(done.stdout)


def require(feature):
    report = isolation()
    if not report.get(feature):
        pytest.skip(f"the worker reports no {feature}: {report.get('reason')}")


def test_worker_reports_its_isolation():
    report = isolation()
    assert report["runner_process"] and report["environment_scrubbed"] and report["descendants_killed"], report
    assert ("filesystem_confined" in report) and ("proc_of_others_hidden" in report), report


def test_candidate_cannot_edit_the_harness(tmp_path):
    """edits_harness.py appends an always-pass compare to the worker's files, then crashes."""
    require("filesystem_confined")
    import hashlib
    import shutil
    copy = tmp_path / "python"
    shutil.copytree(os.path.join(REPO, "python"), copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in copy.glob("*.py")}
    env = {"KFORGE_PYTHON_DIR": str(copy)}
    crashed = bench_env(env, SMALL_PROBLEM, "--source", os.path.join(CHEATS, "edits_harness.py"))
    assert crashed["status"] != "correct", crashed
    after = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in copy.glob("*.py")}
    assert after == before, "a candidate changed the worker's files"
    wrong = bench_env(env, SMALL_PROBLEM, "--source", os.path.join(CHEATS, "phase_state.py"))
    assert wrong["status"] == "incorrect", wrong


def test_candidate_cannot_write_into_kforge_folder(tmp_path):
    require("filesystem_confined")
    result = bench_env({}, SMALL_PROBLEM, "--source", os.path.join(CHEATS, "writes_workdir.py"), cwd=tmp_path)
    assert result["status"] == "correct", result
    assert not (tmp_path / "kforge_planted_file").exists(), "a candidate wrote into kforge's working folder"
    assert not os.path.exists(os.path.join(REPO, "kforge_planted_file"))


def test_candidate_finds_no_secret():
    """reads_secret.py answers wrongly when it finds the planted key in its environment or in
    /proc/<pid>/environ of any ancestor."""
    require("proc_of_others_hidden")
    secret = "sk-kforge-planted-0123456789"
    done = kforge_env({"OPENAI_API_KEY": secret, "KFORGE_PLANTED_TOKEN": secret}, "bench", SMALL_PROBLEM, "--json",
                      "--max-seconds", "0.2", "--source", os.path.join(CHEATS, "reads_secret.py"))
    result = json.loads(done.stdout)[0]
    assert result["status"] == "correct", result
    assert secret not in done.stdout + done.stderr


def test_candidate_leaves_no_process():
    """leaves_daemon.py starts a setsid'd daemon on import; none may be running after kforge."""
    result = bench(SMALL_PROBLEM, "--source", os.path.join(CHEATS, "leaves_daemon.py"))
    assert result["status"] == "correct", result
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"kforge-planted-daemon" in f.read():
                    left.append(int(pid))
        except OSError:
            pass
    for pid in left:
        os.kill(pid, 9)
    assert not left, f"processes left running: {left}"


def test_guard_restores_what_a_candidate_patched():
    import time
    import torch
    from kforge_guard import IntegrityGuard

    guard = IntegrityGuard()
    real_counter, real_gelu = time.perf_counter, torch.nn.functional.gelu
    time.perf_counter = lambda: 0.0
    torch.nn.functional.gelu = torch.relu
    torch.Tensor.kforge_planted = lambda self: self
    try:
        message = guard.message("x")
        for name in ("torch.Tensor.kforge_planted", "torch.nn.functional.gelu", "time.perf_counter"):
            assert name in message, message
    finally:
        assert time.perf_counter is real_counter and torch.nn.functional.gelu is real_gelu
        assert not hasattr(torch.Tensor, "kforge_planted")
    assert guard.message("x") == ""


def test_optimize_without_llm_reports_baselines(tmp_path):
    problem = tmp_path / "tiny_relu.py"
    problem.write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
        "    def forward(self, x):\n        return torch.relu(x) * 2\n\n\n"
        "def get_inputs():\n    return [torch.randn(64, 64)]\n\n\n"
        "def get_init_inputs():\n    return []\n")
    done = kforge("optimize", str(problem), "--llm", "none", "--max-seconds", "0.2", "--runs-dir", str(tmp_path / "runs"),
                  "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)[0]
    assert summary["stop_reason"] == "no operator applies"
    assert "no operator applies" in done.stderr
    baselines = summary["baselines"]
    assert baselines.get("eager_ms", 0) > 0 or "error" in baselines, baselines


def test_optimize_asks_the_llm_for_model_new(tmp_path):
    """The LLM operators are a KernelBench problem's only source of candidates: a scripted
    OpenAI-format server answers every request with a ModelNew, which must be checked and timed."""
    import http.server
    import threading

    problem = tmp_path / "double_relu.py"
    problem.write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
        "    def forward(self, x):\n        return torch.relu(x) * 2\n\n\n"
        "def get_inputs():\n    return [torch.randn(128, 128)]\n\n\n"
        "def get_init_inputs():\n    return []\n")
    answer = ("STRATEGY: one fused clamp\nRATIONALE: clamp_min and the scale in one expression.\n"
              "```python\nimport torch\nimport torch.nn as nn\n\n\nclass ModelNew(nn.Module):\n"
              "    def forward(self, x):\n        return x.clamp_min(0) * 2\n```\n")
    requests = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802  (http.server's naming)
            requests.append(self.rfile.read(int(self.headers["Content-Length"])))
            body = json.dumps({"id": "x", "object": "chat.completion", "model": "scripted",
                               "choices": [{"index": 0, "finish_reason": "stop",
                                            "message": {"role": "assistant", "content": answer}}],
                               "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}})
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        os.environ["OPENAI_BASE_URL"] = f"http://127.0.0.1:{server.server_address[1]}/v1"
        done = kforge("optimize", str(problem), "--llm", "openai:scripted", "-g", "1", "-p", "2",
                      "--max-seconds", "0.2", "--runs-dir", str(tmp_path / "runs"), "--json")
    finally:
        del os.environ["OPENAI_BASE_URL"]
        server.shutdown()
    assert done.returncode == 0, done.stderr
    assert requests, "kforge never asked the LLM"
    assert b"ModelNew" in requests[0]  # the KernelBench rules, not the CUDA ones
    summary = json.loads(done.stdout)[0]
    assert summary["candidates"] >= 2, done.stderr
    assert "correct" in done.stderr.split("[4/6]")[1], done.stderr
