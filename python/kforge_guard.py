"""Catches candidates that patch what the checker, the timer or the reference rely on.

Candidates are imported into the worker process, so a module could replace torch.allclose,
torch.cuda.Event.elapsed_time, time.perf_counter, a torch.nn.functional op the reference uses
(making the reference as wrong as the candidate) or this worker's own compare function. The
guard remembers every callable of those namespaces when the session starts; after a candidate
is imported and after it runs, anything replaced (or, on classes, newly shadowed) is reported
and put back, so one cheating candidate cannot corrupt the checks of the next.

It runs in the runner process (kforge_runner.py), where the candidate lives; the verdicts do not
depend on it, since the judge compares in another process and the runner took its timer before
any candidate was imported. It stays as a tripwire that names what a candidate tried.
"""

import math
import sys
import time

import torch

_MISSING = object()

# Replaced by torch itself: TorchDynamo wraps these the first time torch.compile runs.
_ALLOWED = {
    ("torch", "manual_seed"),
}


def _namespaces():
    """(label, object, whether new attributes count) for everything guarded."""
    spaces = [
        ("torch", torch, False),
        ("torch.Tensor", torch.Tensor, True),
        ("torch.nn.functional", torch.nn.functional, False),
        ("torch.cuda", torch.cuda, False),
        ("torch.cuda.Event", torch.cuda.Event, True),
        ("time", time, False),
        ("math", math, False),
    ]
    for name in ("kforge_runner", "kforge_runners", "kforge_task", "kforge_guard", "kforge_shared"):
        if name in sys.modules:
            spaces.append((name, sys.modules[name], False))
    return spaces


def _guarded(value):
    return callable(value) or isinstance(value, (staticmethod, classmethod, property))


class IntegrityGuard:
    def __init__(self):
        self.entries = []   # (label, owner, name, original value)
        self.class_keys = []  # (label, owner, set of attribute names at start)
        for label, owner, watch_new in _namespaces():
            names = dict(vars(owner))
            for name, value in names.items():
                if _guarded(value) and (label, name) not in _ALLOWED:
                    self.entries.append((label, owner, name, value))
            if watch_new:
                self.class_keys.append((label, owner, set(names)))

    def violations(self):
        """Names of replaced or added attributes; each is restored before returning."""
        changed = []
        for label, owner, name, original in self.entries:
            if vars(owner).get(name, _MISSING) is not original:
                changed.append(f"{label}.{name}")
                setattr(owner, name, original)
        for label, owner, names in self.class_keys:
            for name in set(vars(owner)) - names:
                changed.append(f"{label}.{name}")
                delattr(owner, name)
        return changed

    def message(self, who):
        """A one-line verdict for `who` ("the candidate"), or "" when nothing was touched."""
        return describe_violations(who, self.violations())


def describe_violations(who, changed):
    if not changed:
        return ""
    shown = ", ".join(changed[:4]) + (f" and {len(changed) - 4} more" if len(changed) > 4 else "")
    return f"{who} replaced {shown} (patching torch, the timer or the checker is not allowed)"
