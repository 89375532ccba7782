# Cheat: on import, start a daemon in a new session (double fork, setsid) that would outlive
# kforge. The runner is a PID namespace's init or the judge is its subreaper: every descendant is
# killed with the runner.
import os
import sys

import torch
import torch.nn as nn

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", "kforge-planted-daemon"])
    os._exit(0)


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features))

    def forward(self, x):
        return torch.nn.functional.gelu(x + self.bias)
