"""Optional array backends: CuPy for CUDA devices, registered only when importable."""

from __future__ import annotations

from gradshell.core.device import Device, register_backend

CUDA_HINT = (
    "gradshell: CUDA tensors need CuPy and an NVIDIA GPU "
    "(start the shell with CuPy: uv run --extra cuda gradshell)"
)
_cupy = None
_checked = False


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

    if _cupy is not None:
        device._FOREIGN[:] = [b for b in device._FOREIGN if b[1] is not _cupy]
    _cupy, _checked = None, False


def _load_cupy():
    global _checked
    if _checked:
        return _cupy
    _checked = True
    try:
        import cupy  # noqa: PLC0415 - optional dependency

        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
    except Exception:  # ImportError, or a CUDA driver error: treated as "no GPU"
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
    err.hint = CUDA_HINT
    return err


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
