"""torch.autograd.profiler: not part of gradshell. Its profile context would print a table
of kernel timings; gradshell says so rather than printing a made-up one."""

from __future__ import annotations

__all__ = ["profile", "record_function", "emit_nvtx"]


def _refuse(name: str):
    from gradshell.torch._missing import not_supported

    raise not_supported(f"torch.autograd.profiler.{name}")


class profile:  # noqa: N801 - PyTorch's name
    """Refused: gradshell has no profiler."""

    def __init__(self, *args, **kwargs) -> None:
        _refuse("profile")


class record_function:  # noqa: N801 - PyTorch's name
    """Refused: gradshell has no profiler."""

    def __init__(self, *args, **kwargs) -> None:
        _refuse("record_function")


class emit_nvtx:  # noqa: N801 - PyTorch's name
    """Refused: gradshell has no profiler."""

    def __init__(self, *args, **kwargs) -> None:
        _refuse("emit_nvtx")


for _cls in (profile, record_function, emit_nvtx):
    _cls.__module__ = "torch.autograd.profiler"
