"""Optional array backends: CuPy for CUDA devices, registered only when importable."""

from __future__ import annotations

from gradshell.core.device import Device, register_backend

CUDA_HINT = (
    "gradshell: CUDA tensors need CuPy and an NVIDIA GPU "
    "(start the shell with CuPy: uv run --extra cuda gradshell)"
)
NO_CUPY_HINT = (
    "gradshell: CUDA tensors need CuPy, which is not installed here "
    "(start the shell with CuPy: uv run --extra cuda gradshell), and an NVIDIA GPU"
)
NO_GPU_HINT = (
    "gradshell: CuPy is installed, but it finds no NVIDIA GPU (or no working CUDA driver) "
    "on this machine: CUDA tensors need one; your code runs on the CPU without device='cuda'"
)
_cupy = None
_checked = False
_missing: str | None = None  # why CuPy is not in use: "cupy" (not importable) or "gpu"


def use_cuda_backend(module, array_type: type, device_of) -> None:
    """Install `module` as the CUDA array backend: CuPy itself when it is found, or a test
    double that behaves like it (tests run the whole suite "on the device" that way)."""
    global _cupy, _checked
    _cupy, _checked = module, True
    register_backend(array_type, module, device_of)


def reset_cuda_backend() -> None:
    """Forget the CUDA backend (tests use this to uninstall a double)."""
    global _cupy, _checked
    from gradshell.core import device

    global _missing
    if _cupy is not None:
        device._FOREIGN[:] = [b for b in device._FOREIGN if b[1] is not _cupy]
    _cupy, _checked, _missing = None, False, None


def _load_cupy():
    global _checked, _missing
    if _checked:
        return _cupy
    _checked = True
    try:
        import cupy  # noqa: PLC0415 - optional dependency
    except Exception:  # not installed (or broken): say that CuPy is what is missing
        _missing = "cupy"
        return None
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            _missing = "gpu"
            return None
    except Exception:  # a CUDA driver error: CuPy is there, a usable GPU is not
        _missing = "gpu"
        return None
    use_cuda_backend(cupy, cupy.ndarray, lambda a: Device("cuda", a.device.id))
    return cupy


def cuda_available() -> bool:
    """True when CuPy imports and sees at least one GPU."""
    return _load_cupy() is not None


def CudaUnavailable() -> AssertionError:  # noqa: N802 - reads as the exception it builds
    """The error a CPU-only PyTorch raises for CUDA use, with gradshell's hint attached
    (the shell prints `hint` after the message)."""
    err = AssertionError("Torch not compiled with CUDA enabled")
    err.hint = cuda_hint()
    return err


def cuda_hint() -> str:
    """The hint after a CUDA error: which of CuPy and a GPU is missing."""
    _load_cupy()
    return {"cupy": NO_CUPY_HINT, "gpu": NO_GPU_HINT}.get(_missing or "", CUDA_HINT)


def cuda_module(device: Device):
    """CuPy, for arrays on `device`; raises as a CPU-only PyTorch when there is no GPU."""
    cp = _load_cupy()
    if cp is None:
        raise CudaUnavailable()
    index = device.index or 0
    if index >= cp.cuda.runtime.getDeviceCount():
        raise RuntimeError(
            "CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously "
            "reported at some other API call, so the stacktrace below might be incorrect."
        )
    cp.cuda.Device(index).use()
    return cp
