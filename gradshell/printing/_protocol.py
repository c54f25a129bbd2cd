"""What the printers read from a tensor, in one place (the core's tensor protocol)."""

from __future__ import annotations

import numpy as np

from gradshell.core.device import to_numpy


def host_values(t) -> np.ndarray:
    """The tensor's values as a host NumPy array of its shape (no copy on the CPU)."""
    return to_numpy(t._data)


def is_parameter(t) -> bool:
    """True for `nn.Parameter` objects."""
    return bool(getattr(t, "_is_parameter", False))


def is_tensor(obj) -> bool:
    """True for objects that follow the tensor protocol (gradshell tensors, test doubles)."""
    return hasattr(obj, "_data") and hasattr(obj, "dtype") and hasattr(obj, "grad_fn")


def device_index(device) -> int:
    """The CUDA ordinal a device prints with (PyTorch always has one; None means 0)."""
    return 0 if device.index is None else int(device.index)


def check_edgeitems(edgeitems) -> int:
    """`edgeitems` as an int, or a clear error for values gradshell does not print with."""
    if isinstance(edgeitems, bool) or not isinstance(edgeitems, int | np.integer):
        raise ValueError(
            f"gradshell cannot print with edgeitems={edgeitems!r}: "
            "only non-negative integers are supported"
        )
    if edgeitems < 0:
        raise ValueError(
            f"gradshell cannot print with edgeitems={edgeitems}: "
            "only non-negative integers are supported"
        )
    return int(edgeitems)
