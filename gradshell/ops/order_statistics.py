"""Order statistics: the running extrema cummax / cummin (values and indices, ties going
to the later element, NaN propagating) and the median of all elements (median, and
nanmedian, which skips NaN)."""

from __future__ import annotations

import numpy as np

from gradshell.core import dtypes
from gradshell.ops import return_types
from gradshell.ops.base import (
    Node,
    Tensor,
    array_module,
    needs_grad,
    record,
    tensor_method,
    wrap,
    wrap_dim,
)
from gradshell.ops.explanation import Ctx, Formula, Local
from gradshell.ops.indexing import scatter_add


# -- cummax / cummin -----------------------------------------------------------------------------
def _running(data, dim: int, better) -> tuple:
    """Running extrema along `dim`: an element takes over when it is NaN or when
    `better(element, current)` holds (>= for max: ties go to the later element)."""
    moved = np.moveaxis(np.asarray(data), dim, 0)
    values = np.empty_like(moved)
    indices = np.empty(moved.shape, np.int64)
    for i in range(moved.shape[0]):
        x = moved[i]
        if i == 0:
            values[0], indices[0] = x, 0
            continue
        take = (
            np.isnan(x) | better(x, values[i - 1])
            if x.dtype.kind == "f"
            else better(x, values[i - 1])
        )
        values[i] = np.where(take, x, values[i - 1])
        indices[i] = np.where(take, i, indices[i - 1])
    return np.moveaxis(values, 0, dim), np.moveaxis(indices, 0, dim)


class _CumExtremumBackward(Node):
    """Each element gets the gradient of every running position it was the extremum of."""

    def backward(self, g):
        zeros = wrap(array_module(g._data).zeros(self.input_shape, g._dtype.np), g._dtype)
        return (scatter_add(zeros, self.dim, self.saved("indices"), g),)

    def explain(self, c: Ctx) -> Formula:
        dim, idx = c.attr("dim"), c.saved("indices").astype(np.int64)
        shape = tuple(c.attr("input_shape"))

        def apply(g: np.ndarray) -> np.ndarray:
            out = np.zeros(shape)
            grids = list(np.indices(idx.shape, sparse=True))
            grids[dim] = idx
            np.add.at(out, tuple(grids), g)
            return out

        rhs = "grad added to the element that was the running extremum"
        return Formula(f"{self.op_name}({c.sym(0)}, {dim})", [Local(rhs, kind="map", apply=apply)])


class CummaxBackward0(_CumExtremumBackward):
    """cummax: the running maxima's gradient goes to the elements they came from."""

    op_name = "cummax"
    explain = _CumExtremumBackward.explain


class CumminBackward0(_CumExtremumBackward):
    """cummin: the running minima's gradient goes to the elements they came from."""

    op_name = "cummin"
    explain = _CumExtremumBackward.explain


def _cum_extremum(self: Tensor, dim: int, name: str, better, node_cls, result_cls):
    nd = self._data.ndim
    d = wrap_dim(dim, nd)
    if self._data.size == 0 or nd == 0:
        values = self._data.copy()
        indices = np.zeros(self._data.shape, np.int64)
    else:
        values, indices = _running(self._data, d, better)
    vals = wrap(np.array(values, dtype=self._dtype.np, order="C"), self._dtype)
    idx = wrap(np.array(indices, dtype=np.int64, order="C"), dtypes.int64)
    if needs_grad(self):
        node = node_cls()
        node.dim, node.input_shape = d, tuple(self._data.shape)
        node.save("indices", idx)
        record(node, (self,), vals)
    return result_cls((vals, idx))


@tensor_method("cummax", torch=("cummax",))
def cummax(self, dim: int):
    """The running maximum along `dim` and where each came from (the later of equals)."""
    return _cum_extremum(
        self, dim, "cummax", np.greater_equal, CummaxBackward0, return_types.cummax
    )


@tensor_method("cummin", torch=("cummin",))
def cummin(self, dim: int):
    """The running minimum along `dim` and where each came from (the later of equals)."""
    return _cum_extremum(self, dim, "cummin", np.less_equal, CumminBackward0, return_types.cummin)


# -- median / nanmedian of all elements ----------------------------------------------------------
class _MedianAllBackward(Node):
    """The gradient is shared evenly by the elements equal to the median."""

    def backward(self, g):
        x, r = self.saved("self"), self.saved("result")
        xp = array_module(x._data)
        rv = r._data
        mask = xp.isnan(x._data) if bool(xp.isnan(rv)) else x._data == rv
        count = int(mask.sum())
        share = wrap(mask.astype(g._dtype.np), g._dtype)
        return (share * (g / count),)

    def explain(self, c: Ctx) -> Formula:
        x, r = c.saved("self"), c.saved("result")
        mask = np.isnan(x) if np.isnan(r) else x == r
        local = Local("1/k at the k elements equal to the median, else 0", mask / mask.sum())
        return Formula(f"{self.op_name}({c.sym(0)})", [local])


class MedianBackward0(_MedianAllBackward):
    """median(): evenly to the elements equal to the median."""

    op_name = "median"
    explain = _MedianAllBackward.explain


class NanmedianBackward0(_MedianAllBackward):
    """nanmedian(): evenly to the elements equal to the median."""

    op_name = "nanmedian"
    explain = _MedianAllBackward.explain


def _median_all(self: Tensor, skip_nan: bool, node_cls) -> Tensor:
    data = self._data.reshape(-1)
    if skip_nan and data.dtype.kind == "f":
        data = data[~np.isnan(data)]
    if data.size == 0:
        value = np.array(np.nan, self._dtype.np)
    elif data.dtype.kind == "f" and bool(np.isnan(data).any()):
        value = np.array(np.nan, self._dtype.np)
    else:
        value = np.sort(data)[(data.size - 1) // 2]  # the lower of the two middle values
    res = wrap(np.asarray(value, self._dtype.np), self._dtype)
    if needs_grad(self):
        node = node_cls()
        node.save("self", self)
        node.save("result", res, is_output=True)
        record(node, (self,), res)
    return res


def _no_dim_yet(name: str):
    # PyTorch leaves which of equal values' index is returned to its selection algorithm
    raise NotImplementedError(f"gradshell does not support torch.{name} with dim yet")


@tensor_method("median", torch=("median",))
def median(self, dim=None, keepdim: bool = False):
    """The median of all elements (the lower of the two middle values; NaN if any is)."""
    if dim is not None:
        _no_dim_yet("median")
    return _median_all(self, False, MedianBackward0)


@tensor_method("nanmedian", torch=("nanmedian",))
def nanmedian(self, dim=None, keepdim: bool = False):
    """The median of the non-NaN elements (NaN if all are NaN)."""
    if dim is not None:
        _no_dim_yet("nanmedian")
    return _median_all(self, True, NanmedianBackward0)
