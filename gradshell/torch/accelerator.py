"""torch.accelerator: the device-neutral view of the accelerator (CUDA through CuPy when
it is there; none on a CPU-only machine, where current_accelerator() is None)."""

from __future__ import annotations

from gradshell.core.device import Device

__all__ = [
    "current_accelerator",
    "current_device_index",
    "device_count",
    "is_available",
    "set_device_index",
    "synchronize",
]

_NONE = "Cannot access accelerator device when none is available."


def _cuda():
    from gradshell.torch import cuda

    return cuda


def is_available() -> bool:
    """True when an accelerator (a CUDA GPU with CuPy) can be used."""
    return _cuda().is_available()


def device_count() -> int:
    """How many accelerator devices there are (0 without one)."""
    return _cuda().device_count() if is_available() else 0


def current_accelerator(check_available: bool = False) -> Device | None:
    """device(type='cuda') when there is a GPU, else None."""
    return Device("cuda") if is_available() else None


def current_device_index() -> int:
    """The index of the current accelerator device."""
    if not is_available():
        raise RuntimeError(_NONE)
    return _cuda().current_device()


def set_device_index(device) -> None:
    """Select the accelerator device (gradshell uses one GPU: only index 0)."""
    if not is_available():
        raise RuntimeError(_NONE)
    index = device.index if isinstance(device, Device) else device
    if index not in (None, 0):
        raise RuntimeError(f"gradshell uses one GPU; device index {index} is not available")


def synchronize(device=None) -> None:
    """Wait for the accelerator to finish its work."""
    if not is_available():
        raise RuntimeError(_NONE)
    _cuda().synchronize(device)


# The rest of PyTorch's torch.accelerator (streams, graphs, memory statistics).
_NOT_SUPPORTED = frozenset(
    """Graph current_device_idx current_stream device_index empty_cache empty_host_cache
    get_device_capability get_memory_info graphs max_memory_allocated max_memory_reserved
    memory memory_allocated memory_reserved memory_stats reset_accumulated_memory_stats
    reset_peak_memory_stats set_device_idx set_stream""".split()
)


def __getattr__(name: str):
    if name in _NOT_SUPPORTED:
        from gradshell.torch._missing import not_supported

        raise not_supported(f"torch.accelerator.{name}")
    raise AttributeError(f"module 'torch.accelerator' has no attribute '{name}'")
