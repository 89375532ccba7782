# Cheat: on import, write a file into the working folder of every ancestor process (kforge's
# included, found through /proc/<pid>/cwd) and into the worker's own folder. A runner may write
# only beneath its own folder, and Landlock hides /proc/<pid>/cwd of processes outside it.
import os

import torch
import torch.nn as nn


def _ancestors():
    pid = os.getpid()
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            return
        pid = int(stat[stat.rfind(b")") + 2:].split()[1])
        yield pid


for _pid in _ancestors():
    try:
        folder = os.readlink(f"/proc/{_pid}/cwd")
        with open(os.path.join(folder, "kforge_planted_file"), "w") as f:
            f.write("written by a candidate\n")
    except OSError:
        pass


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features))

    def forward(self, x):
        return torch.nn.functional.gelu(x + self.bias)
