"""Tensor.resize_: a new shape over the same storage, grown when it needs more room.

A family of its own (it records no graph node): the tensor takes `numel(size)` elements
of its storage from its own start, laid out contiguously; a storage too small grows
(PyTorch leaves the new elements uninitialised, gradshell fills them with zeros), and
other tensors on the old storage keep the old memory.
"""

from __future__ import annotations

import math

from gradshell.core.device import array_module
from gradshell.ops.base import Tensor, tensor_method


def _sizes(args: tuple) -> tuple[int, ...]:
    if len(args) == 1 and isinstance(args[0], tuple | list):
        args = tuple(args[0])
    if not all(isinstance(d, int) and not isinstance(d, bool) for d in args):
        names = ", ".join(type(d).__name__ for d in args)
        raise TypeError(
            f"resize_() received an invalid combination of arguments - got ({names}), but "
            "expected one of:\n * (tuple of ints size, *, torch.memory_format memory_format "
            "= None)\n"
        )
    if any(d < 0 for d in args):
        raise RuntimeError("numel: integer multiplication overflow")  # PyTorch's words
    return tuple(args)


def _start(array) -> int:
    """The address of an array's first element (NumPy's or a GPU array's)."""
    iface = getattr(array, "__array_interface__", None) or array.__cuda_array_interface__
    return iface["data"][0]


@tensor_method("resize_")
def resize_(self: Tensor, *size, memory_format=None) -> Tensor:
    """Give this tensor the shape `size` in place, over its storage (grown if needed)."""
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    shape = _sizes(size)
    if shape == tuple(self._data.shape):
        return self
    xp = array_module(self._data)
    root = self._storage_root()
    n = math.prod(shape)
    offset = (_start(self._data) - _start(root)) // self._data.itemsize
    flat = root.reshape(-1) if root.flags.c_contiguous else root.ravel()
    if offset + n > flat.size:
        grown = xp.zeros(offset + n, dtype=flat.dtype)
        grown[: flat.size] = flat
        flat = grown
    self._data = flat[offset : offset + n].reshape(shape)
    self._bump_version()
    return self
