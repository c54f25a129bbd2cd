"""Devices as PyTorch names them, and the array backend (NumPy or CuPy) behind each.

Ops never call `np.` on tensor data directly: they ask `array_module(arr)` for the
module of their inputs (NumPy on the CPU, CuPy on CUDA), as DeZero and Chainer do.
"""

from __future__ import annotations

import re

import numpy as np

_DEVICE_TYPES = (
    "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
    "vulkan, mps, meta, hpu, mtia, privateuseone"
)
_DEVICE_RE = re.compile(r"^([a-z]+)(?::(\d+))?$")


class Device:
    """A device such as `device(type='cpu')` or `device(type='cuda', index=0)`."""

    __slots__ = ("type", "index")
    __module__ = "torch"

    def __init__(self, type: str | Device, index: int | None = None):  # noqa: A002
        if isinstance(type, Device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type
        m = _DEVICE_RE.match(type) if isinstance(type, str) else None
        if m is None or m.group(1) not in _DEVICE_TYPES.split(", "):
            raise RuntimeError(
                f"Expected one of {_DEVICE_TYPES} device type at start of device string: {type}"
            )
        if m.group(2) is not None:
            if index is not None:
                raise RuntimeError(
                    "type (string) must not include an index because index was passed "
                    "explicitly: " + type
                )
            index = int(m.group(2))
        self.type = m.group(1)
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            try:
                other = Device(other)
            except RuntimeError:
                return False
        return isinstance(other, Device) and self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (Device, (self.type, self.index))


Device.__name__ = Device.__qualname__ = "device"  # type(d) is torch.device, as in PyTorch

CPU = Device("cpu")


def as_device(d) -> Device:
    """Turn 'cpu', 'cuda:0', 0 or a Device into a Device."""
    return d if isinstance(d, Device) else Device(d)


def array_module(arr):
    """The array module (NumPy or CuPy) that owns `arr`; NumPy for anything host-side."""
    if type(arr) is np.ndarray:
        return np
    mod = getattr(type(arr), "__array_module__", None)
    if mod is not None:
        return mod
    xp = _foreign_module(arr)
    return np if xp is None else xp


_FOREIGN: list = []  # (array type, module, device-of-array function) registered by backends


def register_backend(array_type: type, module, device_of) -> None:
    """Make `array_type` (e.g. cupy.ndarray) known: ops on it use `module`."""
    _FOREIGN.append((array_type, module, device_of))


def _foreign_module(arr):
    for t, mod, _ in _FOREIGN:
        if isinstance(arr, t):
            return mod
    return None


def device_of(arr) -> Device:
    """The device that holds `arr`."""
    if type(arr) is np.ndarray:
        return CPU
    for t, _, dev in _FOREIGN:
        if isinstance(arr, t):
            return dev(arr)
    return CPU


def to_numpy(arr) -> np.ndarray:
    """A host NumPy array with `arr`'s values (no copy for NumPy arrays)."""
    if type(arr) is np.ndarray:
        return arr
    get = getattr(arr, "get", None)
    if get is not None and not isinstance(arr, np.generic):
        return get()
    return np.asarray(arr)
