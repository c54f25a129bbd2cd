"""Diagonal ops beyond the `diagonal` view: diag (a 1-D tensor onto a matrix's diagonal,
or a matrix's diagonal out as a copy), diag_embed and trace."""

from __future__ import annotations

import numpy as np

from gradshell.core import dtypes
from gradshell.ops.base import (
    BOOL,
    FLOAT,
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
from gradshell.ops.shape import diagonal, diagonal_embed


def _embedded(data, offset: int, d1: int, d2: int):
    """A zero array with `data`'s last dimension on the (offset, d1, d2) diagonal of two
    new dimensions of size n + |offset|."""
    xp = array_module(data)
    n = data.shape[-1]
    m = n + abs(offset)
    nd = data.ndim + 1
    rest = iter(data.shape[:-1])
    shape = tuple(m if k in (d1, d2) else next(rest) for k in range(nd))
    out = xp.zeros(shape, data.dtype)
    i = xp.arange(n)
    view = xp.moveaxis(out, (d1, d2), (-2, -1))
    view[..., i + max(-offset, 0), i + max(offset, 0)] = data
    return out


class DiagEmbedBackward0(Node):
    """Placing values on a diagonal: their gradient is that diagonal of the gradient."""

    def backward(self, g):
        return (diagonal(g, self.offset, self.dim1, self.dim2),)

    def explain(self, c: Ctx) -> Formula:
        offset, d1, d2 = c.attr("offset"), c.attr("dim1"), c.attr("dim2")
        return Formula(
            f"diag_embed({c.sym(0)}, {offset})",
            [
                Local(
                    "the diagonal of grad",
                    kind="map",
                    apply=lambda g: np.diagonal(g, offset, d1, d2).copy(),
                )
            ],
        )


@tensor_method("diag_embed", torch=("diag_embed",))
def diag_embed(self, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Each last-dimension vector placed on the diagonal of a new (dim1, dim2) matrix."""
    nd = self._data.ndim + 1
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    data = self._data if self._data.ndim else self._data.reshape(1)
    res = wrap(_embedded(data, offset, d1, d2), self._dtype)
    if needs_grad(self):
        node = DiagEmbedBackward0()
        node.offset, node.dim1, node.dim2 = offset, d1, d2
        record(node, (self,), res)
    return res


class DiagonalBackward0_copy(Node):  # noqa: N801 - PyTorch's name
    """diag of a matrix (a copy of its diagonal): the gradient goes back onto it."""

    def backward(self, g):
        return (diagonal_embed(g, self.input_shape, self.offset, 0, 1),)

    def explain(self, c: Ctx) -> Formula:
        shape, offset = tuple(c.attr("input_shape")), c.attr("offset")

        def apply(g: np.ndarray) -> np.ndarray:
            out = np.zeros(shape, dtype=np.float64)
            i = np.arange(g.shape[-1])
            out[i + max(-offset, 0), i + max(offset, 0)] = g
            return out

        return Formula(
            f"diag({c.sym(0)}, {offset})",
            [Local("grad placed on the diagonal of zeros", kind="map", apply=apply)],
        )


@tensor_method("diag", torch=("diag",))
def diag(self, diagonal: int = 0) -> Tensor:  # noqa: A002 - shadows the view on purpose
    """A 1-D tensor as the `diagonal`-th diagonal of a square matrix, or a matrix's
    `diagonal`-th diagonal as a 1-D copy."""
    nd = self._data.ndim
    if nd not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {nd}D")
    if nd == 1:
        return diag_embed(self, diagonal, 0, 1)
    xp = array_module(self._data)
    res = wrap(xp.ascontiguousarray(xp.diagonal(self._data, diagonal)), self._dtype)
    if needs_grad(self):
        node = DiagonalBackward0_copy()
        node.input_shape, node.offset = self._data.shape, diagonal
        record(node, (self,), res)
    return res


class TraceBackward0(Node):
    """trace: the gradient lands on every diagonal element, zeros elsewhere."""

    legacy_name_02 = "TraceBackward"

    def backward(self, g):
        n = min(self.input_shape)
        return (diagonal_embed(g.expand(n), self.input_shape, 0, 0, 1),)

    def explain(self, c: Ctx) -> Formula:
        shape = tuple(c.attr("input_shape"))
        return Formula(
            f"trace({c.sym(0)})",
            [Local("1 on the diagonal, 0 elsewhere", np.eye(*shape), kind="reduce")],
        )


@tensor_method("trace", torch=("trace",))
def trace(self) -> Tensor:
    """The sum of the main diagonal of a matrix."""
    if self._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self._data.ndim}")
    if self._dtype.category == BOOL:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    xp = array_module(self._data)
    d = xp.diagonal(self._data)
    if self._dtype.category == FLOAT:
        # PyTorch adds the diagonal one element at a time in a wider accumulator (double
        # for float and double, float for half types), then rounds once
        acc = np.float32 if self._dtype.itemsize <= 2 else np.float64
        total = xp.cumsum(d.astype(acc))[-1] if d.size else xp.zeros((), acc)
        dt = self._dtype
    else:
        total = xp.sum(d.astype(np.int64))
        dt = dtypes.int64
    res = wrap(xp.asarray(total).astype(dt.np), dt)
    if needs_grad(self):
        node = TraceBackward0()
        node.input_shape = self._data.shape
        record(node, (self,), res)
    return res
