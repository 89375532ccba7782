# KernelBench-format problem for the planted Python cheats: examples/kernelbench/bias_gelu.py at
# a size the CPU checks in a fraction of a second (the cheats do not depend on the size).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features))

    def forward(self, x):
        return torch.nn.functional.gelu(x + self.bias)


batch_size = 256
features = 512


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
