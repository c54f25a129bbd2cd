"""A tiny test double of the core's tensor protocol, for printing tests.

It implements exactly what gradshell.printing reads: `_data`, `dtype`, `shape`, `dim()`,
`numel()`, `device`, `requires_grad`, `is_leaf`, `grad_fn`, `_is_parameter`,
`_legacy_variable`; and wires `__repr__`/`__str__`/`__format__` to the printers as the
core does.
"""

from __future__ import annotations

import numpy as np

from gradshell.core import dtypes
from gradshell.core.device import CPU, Device
from gradshell.printing import node_repr, tensor_format, tensor_repr


class FakeNode:
    """A grad_fn node with PyTorch's name and its 0.2 name."""

    def __init__(self, name: str, legacy: str | None = None) -> None:
        self._name = name
        self._legacy = legacy or name

    def name(self) -> str:
        return self._name

    def legacy_name(self) -> str:
        return self._legacy

    def __repr__(self) -> str:
        return node_repr(self)


class FakeTensor:
    """Holds a NumPy array and the autograd flags the printers look at."""

    _is_parameter = False

    def __init__(
        self,
        data,
        dtype=None,
        requires_grad=False,
        grad_fn=None,
        device=CPU,
        legacy_variable=False,
    ) -> None:
        arr = np.asarray(data)
        if dtype is None:
            dtype = dtypes.from_numpy(arr.dtype) if arr.dtype != np.float64 else dtypes.float32
        self._data = arr.astype(dtype.np)
        self.dtype = dtype
        self.requires_grad = requires_grad or grad_fn is not None
        self.grad_fn = grad_fn
        self.device = Device(device) if isinstance(device, str) else device
        self._legacy_variable = legacy_variable

    @property
    def shape(self):
        return self._data.shape

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    def __repr__(self) -> str:
        return tensor_repr(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return tensor_format(self, spec)


class FakeParameter(FakeTensor):
    """nn.Parameter: a tensor subclass flagged `_is_parameter`."""

    _is_parameter = True

    def __init__(self, data, dtype=None, requires_grad=True, **kw) -> None:
        super().__init__(data, dtype, requires_grad=requires_grad, **kw)
