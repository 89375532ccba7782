# Cheat: append an always-pass comparison to the Python worker's own files on disk, then crash,
# so that the next worker (in this run and every later one) loads it. A runner may write only
# beneath its own folder: the append fails, and the crash costs this candidate alone.
import glob
import os
import sys

import torch
import torch.nn as nn

_PLANT = ("\n\ndef compare(actual, expected, atol, rtol):  # planted by edits_harness.py\n"
          "    return {'passed': True, 'mismatches': 0, 'max_abs_err': 0.0}\n")


def _harness_files():
    folders = {os.path.dirname(os.path.abspath(getattr(m, "__file__", "") or "x"))
               for name, m in list(sys.modules.items()) if name.startswith("kforge_")}
    return [f for folder in folders for f in glob.glob(os.path.join(folder, "kforge_*.py"))]


for path in _harness_files():
    try:
        with open(path, "a") as f:
            f.write(_PLANT)
    except OSError:
        pass


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(features))

    def forward(self, x):
        os._exit(1)  # crash, so a fresh worker loads the planted files
