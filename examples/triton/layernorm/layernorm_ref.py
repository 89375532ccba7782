# The task's Python side that candidates never change: the input builder ([task] inputs =
# "layernorm_ref.py:make_inputs") and the reference ([reference]), PyTorch itself.
import torch


def make_inputs(rows, cols, device):
    x = torch.randn(rows, cols, device=device) * 3 + 1  # an offset mean makes a naive variance lose digits
    w = torch.rand(cols, device=device) * 2 - 1
    b = torch.rand(cols, device=device) * 2 - 1
    return x, w, b


def layernorm_ref(x, w, b):
    return torch.nn.functional.layer_norm(x, (x.shape[1],), weight=w, bias=b, eps=1e-5)
