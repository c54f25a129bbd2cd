"""Counting, binning and membership, none of them differentiable: count_nonzero,
bincount, histc, histogram, searchsorted, bucketize, isin, tril_indices and triu_indices."""

from __future__ import annotations

import numpy as np

from gradshell.core import dtypes
from gradshell.core.dtypes import BOOL, FLOAT, INT
from gradshell.ops import return_types
from gradshell.ops.base import (
    Tensor,
    array_module,
    as_array,
    is_scalar,
    norm_dims,
    tensor_method,
    wrap,
)
from gradshell.ops.creation import linspace


@tensor_method("count_nonzero", torch=("count_nonzero",))
def count_nonzero(self, dim=None) -> Tensor:
    """The number of non-zero elements, in all or over `dim` (an int or a tuple)."""
    dims = None if dim is None else norm_dims(dim, self._data.ndim)
    xp = array_module(self._data)
    counts = xp.count_nonzero(self._data, axis=dims)
    return wrap(as_array(xp.asarray(counts, dtype=np.int64)), dtypes.int64)


@tensor_method("bincount", torch=("bincount",))
def bincount(self, weights=None, minlength: int = 0) -> Tensor:
    """How often each value 0..max occurs in a 1-d non-negative integer tensor (or the
    sum of `weights` at each value); at least `minlength` bins."""
    if self._dtype.category != INT and self._dtype.category != BOOL:
        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{self._dtype.scalar_name}'"
        )
    data = self._data
    if data.ndim != 1 or (data.size and int(data.min()) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    xp = array_module(data)
    idx = data.astype(np.int64)
    if weights is None:
        return wrap(xp.bincount(idx, minlength=minlength).astype(np.int64), dtypes.int64)
    if weights._data.ndim != 1 or weights._data.shape[0] != data.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    # float weights keep their dtype; any other weights count in float64
    dt = weights._dtype if weights._dtype.category == FLOAT else dtypes.float64
    n = max(int(idx.max()) + 1 if idx.size else 0, minlength)
    out = xp.zeros(n, dt.np)
    for i, w in zip(idx.tolist(), weights._data.astype(dt.np).tolist(), strict=True):
        out[i] += w  # in input order, one rounding per addition, as PyTorch's loop
    return wrap(out, dt)


@tensor_method("histc", torch=("histc",))
def histc(self, bins: int = 100, min=0, max=0) -> Tensor:  # noqa: A002 - PyTorch's names
    """A histogram of `bins` equal-width bins over [min, max] (the data's own range when
    both are 0); values outside are not counted, max falls in the last bin."""
    if self._dtype.category != FLOAT:
        raise NotImplementedError(
            f"\"histogram_cpu\" not implemented for '{self._dtype.scalar_name}'"
        )
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    dt = self._dtype.np
    xp = array_module(self._data)
    data = self._data.reshape(-1)
    lo, hi = dt.type(min), dt.type(max)
    if lo == hi and data.size:
        finite = data[xp.isfinite(data)]
        if finite.size:
            lo, hi = finite.min(), finite.max()
    if lo == hi:
        lo, hi = lo - dt.type(1), hi + dt.type(1)
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    inside = data[(data >= lo) & (data <= hi)]
    # the bin in the element type, as PyTorch's linear interpolation computes it
    pos = ((inside - lo) * dt.type(bins) / (hi - lo)).astype(np.int64)
    pos = xp.minimum(pos, bins - 1)
    counts = xp.bincount(pos, minlength=bins)[:bins]
    return wrap(counts.astype(dt), self._dtype)


@tensor_method("histogram", torch=("histogram",))
def histogram(self, bins=100, *, range=None, weight=None, density=False):  # noqa: A002
    """(hist, bin_edges): counts (or summed `weight`s) of the elements in each bin, the
    bins `bins` equal widths over `range` (the data's own by default) or the given edges;
    with `density`, divided by the total and by each bin's width."""
    if self._dtype.category != FLOAT:
        raise NotImplementedError(
            f"\"histogramdd\" not implemented for '{self._dtype.scalar_name}'"
        )
    dt = self._dtype.np
    xp = array_module(self._data)
    data = self._data.reshape(-1)
    if isinstance(bins, Tensor):
        edges = bins._data.astype(dt)
    else:
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif data.size:
            lo, hi = float(data.min()), float(data.max())
        else:
            lo, hi = 0.0, 0.0
        if lo == hi:  # ATen widens an empty range by half a unit each way
            lo, hi = lo - 0.5, hi + 0.5
        edges = linspace(lo, hi, int(bins) + 1, dtype=self._dtype)._data
    n_bins = edges.shape[0] - 1
    inside = (data >= edges[0]) & (data <= edges[-1])
    values = data[inside]
    # the bin whose edges hold the value (upper_bound over the edges); the last edge
    # belongs to the last bin
    pos = xp.minimum(xp.searchsorted(edges, values, side="right") - 1, n_bins - 1)
    hist = xp.zeros(n_bins, dt)
    if weight is None:
        xp.add.at(hist, pos, dt.type(1))
    else:
        xp.add.at(hist, pos, weight._data.reshape(-1)[inside].astype(dt))
    if density:
        hist = (hist / dt.type(hist.sum())).astype(dt)
        hist = (hist / xp.diff(edges)).astype(dt)
    return return_types.histogram((wrap(hist, self._dtype), wrap(edges.copy(), self._dtype)))


def _side(side, right: bool) -> bool:
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )
        if side == "left" and right:
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of "
                "left while right was True"
            )
        return side == "right"
    return right


def _index_dtype(out_int32: bool):
    return dtypes.int32 if out_int32 else dtypes.int64


@tensor_method(torch=("searchsorted",))
def searchsorted(
    sorted_sequence: Tensor,
    input,  # noqa: A002 - PyTorch's name
    *,
    out_int32: bool = False,
    right: bool = False,
    side=None,
    sorter=None,
) -> Tensor:
    """For each value, the index where it would be inserted into the innermost sorted
    dimension of `sorted_sequence` (after the first of equal values, with right)."""
    use_right = _side(side, right)
    seq = sorted_sequence._data
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter._data.astype(np.int64), axis=-1)
    scalar = is_scalar(input)
    vals = np.asarray(input) if scalar else input._data
    xp = array_module(seq)
    how = "right" if use_right else "left"
    if seq.ndim == 1:
        out = xp.searchsorted(seq, vals, side=how)
    else:
        if scalar or seq.shape[:-1] != vals.shape[:-1]:
            raise RuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                "dimensions of boundaries tensor and input value tensor must match, but we got "
                f"boundaries tensor {list(seq.shape)} and input value tensor "
                f"{list(vals.shape) if not scalar else []}"
            )
        rows_s = seq.reshape(-1, seq.shape[-1])
        rows_v = vals.reshape(-1, vals.shape[-1])
        out = xp.stack(
            [xp.searchsorted(s, v, side=how) for s, v in zip(rows_s, rows_v, strict=True)]
        ).reshape(vals.shape)
    dt = _index_dtype(out_int32)
    return wrap(as_array(xp.asarray(out).astype(dt.np)), dt)


@tensor_method(torch=("bucketize",))
def bucketize(
    input,  # noqa: A002 - PyTorch's name
    boundaries: Tensor,
    *,
    out_int32: bool = False,
    right: bool = False,
) -> Tensor:
    """The bucket of each value among the 1-d sorted `boundaries` (searchsorted)."""
    if boundaries._data.ndim != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})"
        )
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


@tensor_method(torch=("isin",))
def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """True where an element of `elements` occurs in `test_elements` (False with invert)."""
    if is_scalar(elements) and is_scalar(test_elements):
        raise TypeError("isin() received an invalid combination of arguments")
    e = np.asarray(elements) if is_scalar(elements) else elements._data
    t = np.asarray(test_elements) if is_scalar(test_elements) else test_elements._data
    xp = array_module(t if is_scalar(elements) else e)
    out = xp.isin(e, t, invert=invert)
    return wrap(as_array(xp.asarray(out, dtype=bool)), dtypes.bool_)


def _triangle_indices(name: str, row: int, col: int, offset: int, dtype, upper: bool) -> Tensor:
    dt = dtypes.int64 if dtype is None else dtype
    if dt.category != INT:
        raise NotImplementedError(f"\"{name}\" not implemented for '{dt.scalar_name}'")
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    rows, cols = (np.triu_indices if upper else np.tril_indices)(row, offset, col)
    return wrap(np.stack([rows, cols]).astype(dt.np).reshape(2, -1), dt)


@tensor_method(torch=("tril_indices",))
def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    """The (row, col) coordinates of the lower triangle of a row × col matrix, as 2 × N."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, upper=False)


@tensor_method(torch=("triu_indices",))
def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    """The (row, col) coordinates of the upper triangle of a row × col matrix, as 2 × N."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, upper=True)
