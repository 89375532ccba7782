# KernelBench-format problem: GELU(x + bias), an elementwise epilogue that eager PyTorch runs
# as two kernels (add, then gelu) and a fused kernel runs as one.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features))

    def forward(self, x):
        return torch.nn.functional.gelu(x + self.bias)


batch_size = 4096
features = 2048


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
