# KernelBench-format problem: softmax(x * scale) over the last dimension of a batch x dim
# matrix. A candidate defines ModelNew with the same constructor and forward.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return torch.softmax(x * self.scale, dim=-1)


batch_size = 2048
dim = 1024


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [0.125]
