# Cheat: tell the correctness check from the timing loop by process state the harness changes
# between them (deterministic algorithms and NaN-filled allocations were on only while checking),
# compute honestly when checked and return the input when timed. A runner's state is the same
# for every call, so this candidate is never honest.
import torch
import torch.nn as nn


def _checking():
    return torch.are_deterministic_algorithms_enabled() or torch.is_deterministic_algorithms_warn_only_enabled()


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features))

    def forward(self, x):
        if _checking():
            return torch.nn.functional.gelu(x + self.bias)
        return x
