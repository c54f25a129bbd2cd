"""In-place forms of shape-family ops: t_ (the tensor itself becomes its transpose),
tril_, triu_ and fill_diagonal_, recording the nodes PyTorch records for them."""

from __future__ import annotations

from gradshell.core import grad_mode
from gradshell.ops.base import Node, Tensor, array_module, install, needs_grad, record
from gradshell.ops.explanation import Ctx, Formula, Local, transposed
from gradshell.ops.inplace import (
    LEAF_INPLACE,
    VIEW_OF_LEAF_INPLACE,
    _settle,
    _snapshot_graph,
    apply_inplace,
    check_inplace,
)
from gradshell.ops.shape import tril, triu


class TBackward1(Node):
    """t_ (in place): the gradient is transposed back, as for t()."""

    def backward(self, g):
        return (g.t(),)

    def explain(self, c: Ctx) -> Formula:
        return Formula(transposed(c.sym(0)), [Local("gradᵀ", kind="map", apply=lambda g: g.T)])


def t_(self: Tensor) -> Tensor:
    """Transpose in place: the tensor's own shape and strides change (its storage and
    other views of it do not)."""
    nd = self._data.ndim
    if nd > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {nd}D")
    if grad_mode.state.enabled and self._requires_grad and self._grad_fn is None:
        raise RuntimeError(VIEW_OF_LEAF_INPLACE if self._base is not None else LEAF_INPLACE)
    grad = needs_grad(self)
    old = _snapshot_graph(self) if grad else None
    self._data = self._data.T
    self._bump_version()
    if grad:
        record(TBackward1(), (old,), self)
    return self


def tril_(self: Tensor, diagonal: int = 0) -> Tensor:
    """tril in place (TrilBackward0, as out of place)."""
    return apply_inplace(self, tril, (diagonal,), {}, "tril_")


def triu_(self: Tensor, diagonal: int = 0) -> Tensor:
    """triu in place (TriuBackward0, as out of place)."""
    return apply_inplace(self, triu, (diagonal,), {}, "triu_")


def fill_diagonal_(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """Write `fill_value` on the main diagonal (all dimensions equal for more than 2-d;
    `wrap` restarts the diagonal every cols+1 rows of a tall matrix)."""
    nd = self._data.ndim
    if nd < 2:
        raise RuntimeError("dimensions must larger than 1")
    if nd > 2 and len(set(self._data.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if grad_mode.state.enabled and self._requires_grad and self._grad_fn is None:
        raise RuntimeError(VIEW_OF_LEAF_INPLACE)  # PyTorch writes through a diagonal view
    check_inplace(self)
    if needs_grad(self):
        # PyTorch records a write into a diagonal view (CopySlices), not modelled here
        raise NotImplementedError(
            "gradshell does not support fill_diagonal_ on a tensor that requires grad yet"
        )
    array_module(self._data).fill_diagonal(self._data, fill_value, wrap=wrap)
    _settle(self)
    self._bump_version()
    return self


for _fn in (t_, tril_, triu_, fill_diagonal_):
    install(_fn.__name__, _fn)
