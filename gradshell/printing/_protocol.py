"""What the printers read from a tensor, in one place (the core's tensor protocol)."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from gradshell.core.device import to_numpy


class NodeLike(Protocol):
    """A grad_fn / AccumulateGrad node as the printers see it."""

    def name(self) -> str:
        """PyTorch 2.13's class name, e.g. 'AddBackward0'."""
        ...

    def legacy_name(self) -> str:
        """The 0.2 repr name with its module path, e.g. 'torch.autograd.function.AddConstantBackward'."""
        ...


class TensorLike(Protocol):
    """What the printers read from a tensor (gradshell's Tensor or a test double).

    Optional class/instance flags: `_is_parameter` (nn.Parameter) and `_legacy_variable`
    (a 0.3 Variable that neither requires grad nor has a grad_fn, e.g. `x.grad`).
    """

    _data: Any  # NumPy or CuPy array with the tensor's shape
    dtype: Any  # gradshell.core.dtypes.DType
    device: Any  # gradshell.core.device.Device
    requires_grad: bool
    grad_fn: NodeLike | None


def node_class_name(node: NodeLike) -> str:
    """The name PyTorch prints for a node (its class name, `CopySlices`), which is
    `name()` without a C++ namespace (`torch::autograd::CopySlices`)."""
    return node.name().rpartition("::")[2]


def host_values(t: TensorLike) -> np.ndarray:
    """The tensor's values as a host NumPy array of its shape (no copy on the CPU)."""
    return to_numpy(t._data)


def is_parameter(t: TensorLike) -> bool:
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
