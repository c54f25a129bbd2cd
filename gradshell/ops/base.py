"""What every op module shares: declaring ops' Tensor methods and torch names (in the
op registry), turning operands into arrays of the result dtype, and wrapping results.

Ops compute with the array module of their inputs (`xp`), never with `np.` directly
on tensor data, so CuPy arrays flow through unchanged.
"""

from __future__ import annotations

import numbers

import numpy as np

from gradshell.core import dtypes
from gradshell.core.autograd import Node, needs_grad, record
from gradshell.core.device import array_module, device_of
from gradshell.core.dtypes import BOOL, FLOAT, INT, DType
from gradshell.core.tensor import Tensor, wrap, wrap_dim
from gradshell.ops import registry

__all__ = [
    "Node",
    "Tensor",
    "DType",
    "array_module",
    "as_array",
    "binary_operands",
    "broadcast_error",
    "broadcast_fail",
    "check_same_device",
    "install",
    "is_scalar",
    "needs_grad",
    "norm_dims",
    "opmath",
    "record",
    "tensor_method",
    "wrap",
    "wrap_dim",
    "BOOL",
    "INT",
    "FLOAT",
]


def opmath(data):
    """`data` in PyTorch's compute type: float16 arrays in float32 (PyTorch's CPU kernels
    compute half types in float32 and round the result once), others as they are."""
    return data.astype(np.float32) if data.dtype == np.float16 else data


def install(name: str, func) -> None:
    """Declare `func` as the Tensor method `name` (in the op registry)."""
    registry.method(name, func)


def tensor_method(*names: str, torch: tuple[str, ...] = ()):
    """Decorator: declare the function as the Tensor methods `names` and the torch
    functions `torch` (see `gradshell.ops.registry.op`)."""
    return registry.op(*names, torch=torch)


def broadcast_fail(a, b) -> RuntimeError:
    """PyTorch's error for operands (tensors or numbers) whose shapes do not broadcast."""
    sa = a.shape if isinstance(a, Tensor) else ()
    sb = b.shape if isinstance(b, Tensor) else ()
    return broadcast_error(tuple(sa), tuple(sb))


def is_scalar(x) -> bool:
    """True for Python (and NumPy scalar) numbers, which ops treat as wrapped scalars."""
    return isinstance(x, numbers.Number) and not isinstance(x, Tensor)


def as_array(x):
    """Turn the raw result of an array op into an array (NumPy returns scalars for 0-d)."""
    if isinstance(x, np.generic):
        return np.asarray(x)
    return x


_INT_LIMITS = {d: np.iinfo(d.np) for d in dtypes.ALL if d.category == INT}


def scalar_as(value, dtype: DType):
    """A Python number converted for arithmetic with an array of `dtype`, wrapping
    integers that do not fit as PyTorch does (int8 + 1000 wraps around)."""
    if dtype.category == FLOAT:
        if isinstance(value, complex):
            raise RuntimeError(
                "result type ComplexFloat can't be cast to the desired output type Float"
            )
        return float(value) if not isinstance(value, float) else value
    if dtype.category == INT:
        if isinstance(value, float):
            return value
        lim = _INT_LIMITS[dtype]
        v = int(value)
        if lim.min <= v <= lim.max:
            return v
        return np.array(v & 0xFFFFFFFFFFFFFFFF, dtype=np.uint64).astype(dtype.np)[()]
    return bool(value)


def check_same_device(a: Tensor, b: Tensor, op: str = "") -> None:
    """Raise PyTorch's error when two tensors live on different devices."""
    da, db = device_of(a._data), device_of(b._data)
    if da != db:
        if da.type == "cpu":
            da, db = db, da
        raise RuntimeError(
            "Expected all tensors to be on the same device, but found at least two devices, "
            f"{_dev_name(da)} and {_dev_name(db)}!"
        )


def broadcast_error(sa: tuple, sb: tuple) -> RuntimeError:
    """PyTorch's error for shapes that do not broadcast: the rightmost dimension at which
    they clash, counted in the broadcast result."""
    n = max(len(sa), len(sb))
    for i in range(1, n + 1):
        x = sa[-i] if i <= len(sa) else 1
        y = sb[-i] if i <= len(sb) else 1
        if x != y and x != 1 and y != 1:
            return RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {n - i}"
            )
    return RuntimeError("shapes cannot be broadcast together")


def _dev_name(d) -> str:
    return "cpu" if d.type == "cpu" else f"{d.type}:{d.index or 0}"


def binary_operands(a, b, dtype: DType | None = None):
    """(array_a, array_b_or_scalar, result dtype, xp) for an elementwise op on a tensor and
    a tensor or Python number, following PyTorch's type promotion."""
    if isinstance(a, Tensor):
        ad = a._data
        if isinstance(b, Tensor):
            bd = b._data
            if type(ad) is not type(bd):
                check_same_device(a, b)
            if dtype is None:
                dtype = a._dtype if a._dtype is b._dtype else dtypes.result_type(a, b)
            if ad.dtype != dtype.np:
                ad = ad.astype(dtype.np)
            if bd.dtype != dtype.np:
                bd = bd.astype(dtype.np)
            return ad, bd, dtype, array_module(ad)
        if not is_scalar(b):
            raise TypeError(_bad_operand(b))
        if dtype is None:
            dtype = a._dtype
            if dtypes.scalar_category(b) > dtype.category:
                dtype = dtypes.result_type(a, b)
        if ad.dtype != dtype.np:
            ad = ad.astype(dtype.np)
        return ad, scalar_as(b, dtype), dtype, array_module(ad)
    # a is a scalar, b a tensor
    bd_, ad_, dt, xp = binary_operands(b, a, dtype)
    return ad_, bd_, dt, xp


def _bad_operand(x) -> str:
    return f"unsupported operand type: '{type(x).__name__}'"


def norm_dims(dim, ndim: int) -> tuple:
    """`dim` (int, tuple or None) as a sorted tuple of non-negative dimensions."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        dims = tuple(wrap_dim(d, ndim) for d in dim)
        if len(set(dims)) != len(dims):
            for d in dims:
                if dims.count(d) > 1:
                    raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        return tuple(sorted(dims))
    return (wrap_dim(dim, ndim),)
