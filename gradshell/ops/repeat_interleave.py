"""repeat_interleave: each element (or slice along `dim`) repeated in place, `[a, b]` ->
`[a, a, b, b]`.

Built as PyTorch builds it, so the same nodes are recorded: a Python int of repeats
unsqueezes, expands, copies and flattens (ViewBackward0 over CloneBackward0 over
ExpandBackward0 over UnsqueezeBackward0); a tensor of repeats turns into indices for
index_select (IndexSelectBackward0). Without `dim` the input is flattened first.
"""

from __future__ import annotations

import numpy as np

from gradshell.core import dtypes
from gradshell.core.device import to_numpy
from gradshell.ops.base import INT, Tensor, array_module, tensor_method, wrap, wrap_dim
from gradshell.ops.indexing import index_select
from gradshell.ops.shape import clone, expand, flatten, reshape, unsqueeze, view


def _indices(repeats: Tensor, output_size: int | None) -> Tensor:
    """torch.repeat_interleave(repeats): each position i repeated repeats[i] times."""
    if repeats._data.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats._dtype.category != INT:
        raise NotImplementedError(
            f"\"repeat_interleave_cpu\" not implemented for '{repeats._dtype.scalar_name}'"
        )
    reps = to_numpy(repeats._data).astype(np.int64)
    if reps.size and int(reps.min()) < 0:
        raise RuntimeError("repeats can not be negative")
    total = int(reps.sum())
    if output_size is not None and output_size != total:
        raise RuntimeError("allocated size does not match required size")
    xp = array_module(repeats._data)
    return wrap(xp.asarray(np.repeat(np.arange(reps.size, dtype=np.int64), reps)), dtypes.int64)


def _by_int(x: Tensor, repeats: int, d: int, output_size: int | None) -> Tensor:
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = x._data.shape
    if output_size is not None and output_size != shape[d] * repeats:
        raise RuntimeError(
            f"repeat_interleave: Invalid output_size, expected {shape[d] * repeats} but got "
            f"{output_size}"
        )
    wide = unsqueeze(x, d + 1)  # a 0-d input with a dim fails here, as in PyTorch
    copied = clone(expand(wide, shape[: d + 1] + (repeats,) + shape[d + 1 :]))
    # the copy is contiguous, so merging the two dimensions is a view
    return view(copied, shape[:d] + (shape[d] * repeats,) + shape[d + 1 :])


@tensor_method("repeat_interleave", torch=("repeat_interleave",))
def repeat_interleave(self, repeats=None, dim: int | None = None, *, output_size=None) -> Tensor:
    """Repeat each element (or each slice along `dim`) `repeats` times, in place; with a
    tensor of repeats, element i `repeats[i]` times. `torch.repeat_interleave(t)` alone
    repeats each index i `t[i]` times."""
    if repeats is None:
        return _indices(self, output_size)
    x = self
    if dim is None:
        x = flatten(x) if x._data.ndim != 1 else x
        d = 0
    else:
        d = wrap_dim(dim, x._data.ndim)
    if not isinstance(repeats, Tensor):
        return _by_int(x, int(repeats), d, output_size)
    if x._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if repeats._data.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    size = x._data.shape[d]
    if repeats._data.ndim == 0 or repeats._data.shape[0] == 1:
        repeats = expand(reshape(repeats, (1,)), size)
    elif repeats._data.shape[0] != size:
        raise RuntimeError(
            "repeats must have the same size as input along dim, but got repeats.size(0) = "
            f"{repeats._data.shape[0]} and input.size({d}) = {size}"
        )
    if repeats._dtype.category == INT:
        reps = to_numpy(repeats._data)
        if reps.size and int(reps.min()) < 0:
            raise RuntimeError("repeats can not be negative")
    return index_select(x, d, _indices(repeats, output_size))
