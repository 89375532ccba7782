# A pure-PyTorch ModelNew for bias_gelu.py: the tanh approximation of GELU (a different
# formula within KernelBench's 1e-2 tolerance). Runs everywhere, so CI can see a candidate
# other than the baseline pass the check.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features))

    def forward(self, x):
        return torch.nn.functional.gelu(x + self.bias, approximate="tanh")
