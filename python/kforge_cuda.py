"""Raw CUDA for candidates, compiled with NVRTC through the CUDA Python bindings.

torch.utils.cpp_extension.load_inline builds a whole C++ extension with nvcc and a host
compiler (tens of seconds per candidate); a kernel needs only NVRTC (well under a second) and
a driver-API launch. Cubins are cached on disk by source, options and architecture, so
re-evaluating a candidate costs a file read.

    import kforge_cuda
    kernel = kforge_cuda.compile(SOURCE, "bias_gelu")            # extern "C" __global__ ...
    kernel((blocks,), (256,), x, bias, out, n)                  # tensors, ints, floats
    kernel(grid, block, *args, shared_mem=0, stream=None)       # default: torch's current stream

Integers are passed as 32-bit `int` and floats as 32-bit `float` unless wrapped in a ctypes
type (ctypes.c_int64(n), ctypes.c_double(x)).
"""

import ctypes
import hashlib
import os
import threading

import torch

try:  # cuda-python >= 12.6 ships the bindings as cuda.bindings
    from cuda.bindings import driver, nvrtc
except ImportError:  # older cuda-python
    from cuda import cuda as driver  # type: ignore
    from cuda import nvrtc  # type: ignore

_lock = threading.Lock()
_loaded = {}  # cache key -> Kernel, per process


class CudaError(RuntimeError):
    pass


def _check(result, what):
    """cuda-python returns (status, values...); raise on a non-success status."""
    status, rest = result[0], result[1:]
    ok = status in (driver.CUresult.CUDA_SUCCESS, nvrtc.nvrtcResult.NVRTC_SUCCESS)
    if not ok:
        raise CudaError(f"{what} failed: {status}")
    return rest[0] if len(rest) == 1 else rest


def cache_dir():
    base = os.environ.get("KFORGE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "kforge")
    return os.path.join(base, "nvrtc-py")


def _arch(device):
    major, minor = torch.cuda.get_device_capability(device)
    return f"sm_{major}{minor}"


def _nvrtc_compile(source, name, options):
    program = _check(nvrtc.nvrtcCreateProgram(source.encode(), f"{name}.cu".encode(), 0, [], []),
                     "nvrtcCreateProgram")
    try:
        encoded = [o.encode() for o in options]
        status = nvrtc.nvrtcCompileProgram(program, len(encoded), encoded)[0]
        log_size = _check(nvrtc.nvrtcGetProgramLogSize(program), "nvrtcGetProgramLogSize")
        log = b" " * log_size
        _check(nvrtc.nvrtcGetProgramLog(program, log), "nvrtcGetProgramLog")
        if status != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise CudaError(f"NVRTC could not compile {name}:\n{log.decode(errors='replace').rstrip()}")
        size = _check(nvrtc.nvrtcGetCUBINSize(program), "nvrtcGetCUBINSize")
        cubin = b" " * size
        _check(nvrtc.nvrtcGetCUBIN(program, cubin), "nvrtcGetCUBIN")
        return cubin
    finally:
        nvrtc.nvrtcDestroyProgram(program)


def _ensure_context(device):
    """Makes torch's primary context current on this thread, so module loads and launches
    share memory with torch tensors."""
    torch.cuda.init()
    _check(driver.cuInit(0), "cuInit")
    current = _check(driver.cuCtxGetCurrent(), "cuCtxGetCurrent")
    if current is None or int(current) == 0:
        dev = _check(driver.cuDeviceGet(device), "cuDeviceGet")
        ctx = _check(driver.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
        _check(driver.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")


class Kernel:
    def __init__(self, function, module, name):
        self.function = function
        self.module = module  # keeps the module loaded while the kernel lives
        self.name = name

    def __call__(self, grid, block, *args, shared_mem=0, stream=None):
        grid = tuple(grid) + (1,) * (3 - len(grid))
        block = tuple(block) + (1,) * (3 - len(block))
        storage = []
        for arg in args:
            if isinstance(arg, torch.Tensor):
                storage.append(ctypes.c_void_p(arg.data_ptr()))
            elif isinstance(arg, ctypes._SimpleCData):
                storage.append(arg)
            elif isinstance(arg, bool) or isinstance(arg, int):
                storage.append(ctypes.c_int(int(arg)))
            elif isinstance(arg, float):
                storage.append(ctypes.c_float(arg))
            else:
                raise TypeError(f"{self.name}: cannot pass {type(arg).__name__} to a kernel")
        pointers = (ctypes.c_void_p * max(1, len(storage)))(*[ctypes.addressof(s) for s in storage])
        if stream is None:
            stream = torch.cuda.current_stream().cuda_stream
        handle = stream.cuda_stream if hasattr(stream, "cuda_stream") else stream
        _check(driver.cuLaunchKernel(self.function, *grid, *block, shared_mem, driver.CUstream(handle),
                                     ctypes.addressof(pointers), 0), f"launching {self.name}")


def compile(source, name, options=(), device=None):  # noqa: A001  (mirrors torch's naming)
    """Compiles `source` with NVRTC (cached on disk) and returns the kernel `name` (declare it
    extern "C" so its name is not mangled)."""
    device = torch.cuda.current_device() if device is None else device
    arch = _arch(device)
    opts = [f"--gpu-architecture={arch}", "-default-device", *options]
    version = _check(nvrtc.nvrtcVersion(), "nvrtcVersion")
    key = hashlib.sha256("\0".join([source, name, arch, str(version), *opts]).encode()).hexdigest()[:32]
    with _lock:
        if key in _loaded:
            return _loaded[key]
        path = os.path.join(cache_dir(), key + ".cubin")
        if os.path.exists(path):
            with open(path, "rb") as f:
                cubin = f.read()
        else:
            cubin = _nvrtc_compile(source, name, opts)
            os.makedirs(cache_dir(), exist_ok=True)
            temp = f"{path}.{os.getpid()}.tmp"
            with open(temp, "wb") as f:
                f.write(cubin)
            os.replace(temp, path)  # atomic: concurrent workers never read half a file
        _ensure_context(device)
        module = _check(driver.cuModuleLoadData(cubin), "cuModuleLoadData")
        function = _check(driver.cuModuleGetFunction(module, name.encode()), f"cuModuleGetFunction({name})")
        kernel = Kernel(function, module, name)
        _loaded[key] = kernel
        return kernel
