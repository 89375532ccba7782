#!/usr/bin/env python3
"""kforge's worker for Triton and PyTorch (KernelBench-format) tasks: the judge.

Speaks the protocol of src/worker (JSON lines on stdin/stdout: info, check, time, bandwidth,
exit) so the orchestrator's WorkerProcess and Evaluator drive it unchanged. Candidates are never
imported here: each runs in a runner process of its own (kforge_runner.py), see kforge_session.py.
On a machine without CUDA, tensors live on the CPU and Triton runs in interpreter mode
(TRITON_INTERPRET=1). `--isolation` prints what confines the runners here, as JSON, and exits.
"""

import argparse
import json
import os
import sys
import traceback

# The protocol owns the real stdout; anything candidates or libraries print goes to stderr.
_PROTOCOL = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _finite(value):
    """JSON has no NaN or infinity: such errors are reported as the largest double."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return -1.7976931348623157e308 if value < 0 else 1.7976931348623157e308
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def reply(message):
    _PROTOCOL.write(json.dumps(_finite(message), default=str, allow_nan=False) + "\n")
    _PROTOCOL.flush()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", choices=["triton", "pytorch"])
    parser.add_argument("--device", type=int, default=0)
    parser.add_argument("--isolation", action="store_true")
    options = parser.parse_args()
    if options.isolation:
        import torch
        from kforge_confine import report
        reply(report(torch.cuda.is_available()))
        return 0
    if not options.backend:
        parser.error("--backend is required")
    try:
        import torch  # noqa: F401  (imported first: it decides whether Triton interprets)
        if not torch.cuda.is_available():
            os.environ.setdefault("TRITON_INTERPRET", "1")
        from kforge_session import CandidateFailed, HarnessError, Session
        session = Session(options.backend, options.device)
    except Exception as e:  # the orchestrator reports this line as why the worker did not start
        reply({"ok": False, "error": f"python worker could not start: {type(e).__name__}: {e}"})
        return 2
    reply({"ok": True, "ready": True})
    try:
        return serve(session, CandidateFailed, HarnessError)
    finally:
        session.close()  # every runner and everything it started dies with the judge


def serve(session, CandidateFailed, HarnessError):
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            request = json.loads(line)
        except ValueError as e:
            reply({"ok": False, "error": f"malformed request: {e}"})
            continue
        if request.get("op") == "exit":
            break
        try:
            reply(session.handle(request))
        except CandidateFailed as e:  # already one line saying what the candidate did
            reply({"ok": False, "error": str(e)})
        except HarnessError as e:
            reply({"ok": False, "error": str(e)})
            return 4
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            lost = session.context_lost(e)
            reply({"ok": False, "error": f"{type(e).__name__}: {e}", "context_lost": lost})
            if lost:  # a CUDA sticky error poisons every later answer: let a fresh worker start
                return 3
        session.prepare_spares()  # between requests, while the orchestrator works
    return 0


if __name__ == "__main__":
    sys.exit(main())
