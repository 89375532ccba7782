"""Tensors shared between the judge and a runner without copying them through a pipe.

CPU (exercised by CI and on this machine): a file in the runner's shared-memory folder
(/dev/shm/kforge-*/runner-N/), mapped MAP_SHARED by both processes with `torch.from_file`.
CUDA (exercised on the GPU machine): CUDA IPC, through torch.multiprocessing's reduction of CUDA
tensors (cudaIpcGetMemHandle; the judge keeps the tensor alive while a runner uses it).

A descriptor is plain JSON, so the runner's request stream stays JSON lines.
"""

import base64
import importlib
import io
import itertools
import os
import pickle

import torch

_counter = itertools.count()


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def share(tensor, folder):
    """A shared copy of `tensor` (contiguous) and the descriptor a runner attaches to."""
    tensor = tensor.detach()
    if tensor.is_cuda:
        shared = tensor.clone(memory_format=torch.contiguous_format)
        importlib.import_module("torch.multiprocessing.reductions")  # registers the CUDA reductions
        from multiprocessing.reduction import ForkingPickler
        buffer = io.BytesIO()
        ForkingPickler(buffer, pickle.HIGHEST_PROTOCOL).dump(shared)
        return shared, {"cuda": base64.b64encode(buffer.getvalue()).decode("ascii")}
    numel = tensor.numel()
    descriptor = {"shape": list(tensor.shape), "dtype": _dtype_name(tensor.dtype), "numel": numel}
    if numel == 0:
        return tensor.clone(), descriptor
    path = os.path.join(folder, f"t{next(_counter)}")
    with open(path, "wb") as f:
        f.truncate(numel * tensor.element_size())
    shared = torch.from_file(path, shared=True, size=numel, dtype=tensor.dtype).view(tensor.shape)
    shared.copy_(tensor)
    descriptor["path"] = path
    return shared, descriptor


def empty_shared(shape, dtype, device, folder):
    return share(torch.empty(shape, dtype=dtype, device=device), folder)


def attach(descriptor, device):
    """The runner's view of a shared tensor."""
    if "cuda" in descriptor:
        importlib.import_module("torch.multiprocessing.reductions")
        return pickle.loads(base64.b64decode(descriptor["cuda"]))
    dtype = getattr(torch, descriptor["dtype"])
    if descriptor["numel"] == 0:
        return torch.empty(descriptor["shape"], dtype=dtype, device=device)
    return torch.from_file(descriptor["path"], shared=True, size=descriptor["numel"], dtype=dtype).view(
        descriptor["shape"])


def encode_value(value, device, folder, keep):
    """Inputs and init arguments: tensors become shared descriptors (kept alive in `keep`),
    plain values go as they are."""
    if isinstance(value, torch.Tensor):
        shared, descriptor = share(value.to(device), folder)
        keep.append(shared)
        return {"tensor": descriptor}, shared
    if isinstance(value, (list, tuple)):
        parts = [encode_value(v, device, folder, keep) for v in value]
        return {"list": [p[0] for p in parts]}, [p[1] for p in parts]
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"value": value}, value
    raise TypeError(f"cannot pass a {type(value).__name__} to a runner (tensors, numbers, strings and lists only)")


def decode_value(encoded, device):
    if "tensor" in encoded:
        return attach(encoded["tensor"], device)
    if "list" in encoded:
        return [decode_value(v, device) for v in encoded["list"]]
    return encoded["value"]
