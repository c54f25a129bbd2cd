"""The arithmetic the backward engine does on gradients itself: summing the gradients
that meet at a node, reducing a broadcast gradient to its input's shape, casting it to
the input's dtype, and copying it into `.grad`.

These run on the arrays directly, so the engine needs nothing from the op library to
run a backward pass. Two things it cannot do alone:

* With `create_graph=True` a gradient that requires grad must be recorded in the graph
  (an `AddBackward0` for a sum, ...). Recording needs the ops' nodes, so then these
  functions call the Tensor method the op library installed.
* PyTorch sums a broadcast gradient in its own order of additions, which the op
  library reproduces bit for bit. It registers that sum with `set_exact_sum`; until it
  does (the core alone), `sum_to_size` uses the array module's own sum.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gradshell.core import dtypes, grad_mode
from gradshell.core.device import array_module
from gradshell.core.tensor import Tensor, wrap

_ndarray = np.ndarray
_exact_sum: Callable[[Tensor, tuple], Tensor] | None = None


def set_exact_sum(fn: Callable[[Tensor, tuple], Tensor] | None) -> None:
    """Register `fn(t, dims)`: `t` summed over `dims` with keepdim, in PyTorch's order."""
    global _exact_sum
    _exact_sum = fn


def _recording(*tensors: Tensor) -> bool:
    # The engine turns grad mode on only for create_graph=True.
    if not grad_mode.state.enabled:
        return False
    return any(t._requires_grad for t in tensors)


def add(a: Tensor, b: Tensor) -> Tensor:
    """`a + b` for two gradients arriving at the same place."""
    if _recording(a, b):
        return a + b
    ad, bd = a._data, b._data
    dt = a._dtype
    if b._dtype is not dt:
        dt = dtypes.promote_types(dt, b._dtype)
        ad, bd = ad.astype(dt.np, copy=False), bd.astype(dt.np, copy=False)
    elif type(ad) is not type(bd):
        return a + b  # arrays on two devices: the op library raises PyTorch's error
    r = ad + bd
    if r.__class__ is not _ndarray and type(ad) is _ndarray:
        r = np.asarray(r)  # NumPy hands back a scalar for 0-d operands
    return wrap(r, dt)


def clone(g: Tensor) -> Tensor:
    """A copy of `g` with its own storage (recorded when `g` requires grad)."""
    if _recording(g):
        return g.clone()
    xp = array_module(g._data)
    return wrap(xp.array(g._data, copy=True), g._dtype)


def detached_copy(g: Tensor) -> Tensor:
    """A copy of `g`'s values outside the graph (`g.detach().clone()`)."""
    xp = array_module(g._data)
    return wrap(xp.array(g._data, copy=True), g._dtype)


def cast(g: Tensor, dtype: dtypes.DType) -> Tensor:
    """`g` converted to `dtype` (`g` itself when it already has it)."""
    if g._dtype is dtype:
        return g
    if _recording(g):
        return g.to(dtype)
    return wrap(g._data.astype(dtype.np, copy=True), dtype)


def sum_to_size(g: Tensor, shape: tuple) -> Tensor:
    """`g` with its broadcast dimensions summed away, so that it has `shape`."""
    have = g._data.shape
    if have == shape:
        return g
    if _recording(g):
        return g.sum_to_size(shape)
    lead = len(have) - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and have[lead + i] != 1
    )
    if not dims:
        return wrap(g._data.reshape(shape), g._dtype)
    if _exact_sum is not None:
        r = _exact_sum(g, dims)
        return wrap(r._data.reshape(shape), r._dtype) if lead else r
    a = g._data
    acc = np.float32 if a.dtype == np.float16 else None  # half sums accumulate in float
    xp = array_module(a)
    r = xp.sum(a, axis=dims, keepdims=True, dtype=acc).astype(a.dtype, copy=False)
    return wrap(r.reshape(shape), g._dtype)


def copy_into(dst: Tensor, src: Tensor) -> Tensor:
    """Write `src`'s values into `dst` in place (`dst.copy_(src)`); returns `dst`."""
    if _recording(dst, src):
        return dst.copy_(src)
    dst._data[...] = src._data
    dst._bump_version()  # rounds a bfloat16 storage too
    return dst
