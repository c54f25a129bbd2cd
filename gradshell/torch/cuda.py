"""torch.cuda: device queries, backed by CuPy when it and a GPU are present."""

from __future__ import annotations

from gradshell.core.backends import CudaUnavailable, _load_cupy, cuda_available


def is_available() -> bool:
    """True when CuPy imports and sees an NVIDIA GPU."""
    return cuda_available()


def device_count() -> int:
    """The number of visible GPUs (0 without CuPy)."""
    cp = _load_cupy()
    return 0 if cp is None else cp.cuda.runtime.getDeviceCount()


def _need():
    cp = _load_cupy()
    if cp is None:
        raise CudaUnavailable()
    return cp


def current_device() -> int:
    """The index of the current GPU."""
    return _need().cuda.Device().id


def get_device_name(device=None) -> str:
    """The GPU's product name."""
    cp = _need()
    idx = 0 if device is None else getattr(device, "index", device) or 0
    return cp.cuda.runtime.getDeviceProperties(idx)["name"].decode()


def synchronize(device=None) -> None:
    """Wait for all GPU work to finish."""
    _need().cuda.Device().synchronize()


def manual_seed(seed: int) -> None:
    """Seed CuPy's generator (CUDA random numbers come from CuPy, not PyTorch's Philox)."""
    cp = _load_cupy()
    if cp is not None:
        cp.random.seed(seed)


manual_seed_all = manual_seed


def is_initialized() -> bool:
    """True once a GPU has been used."""
    return _load_cupy() is not None
