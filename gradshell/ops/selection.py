"""Selecting elements by a condition: `where` (with its node, WhereBackward0) and
`nonzero`, the indices where a condition holds."""

from __future__ import annotations

import numpy as np

from gradshell.core import dtypes
from gradshell.ops.base import (
    BOOL,
    Node,
    Tensor,
    array_module,
    as_array,
    binary_operands,
    install,
    is_scalar,
    needs_grad,
    record,
    tensor_method,
    wrap,
)
from gradshell.ops.explanation import (
    Ctx,
    Formula,
    Local,
)


@tensor_method("nonzero", torch=("nonzero",))
def nonzero(self, *, as_tuple: bool = False):
    """Indices of the non-zero elements (an N×ndim int64 tensor, or a tuple of index vectors)."""
    xp = array_module(self._data)
    idx = xp.nonzero(self._data) if self._data.ndim else xp.nonzero(self._data.reshape(1))
    if as_tuple:
        return tuple(wrap(as_array(i.astype(np.int64)), dtypes.int64) for i in idx)
    stacked = xp.stack(idx, axis=1) if idx else xp.zeros((0, 0), np.int64)
    return wrap(as_array(stacked.astype(np.int64)), dtypes.int64)


# -- where -------------------------------------------------------------------------------------
class WhereBackward0(Node):
    """d where(c, a, b): g where c for a, g where not c for b."""

    def backward(self, g):
        c = self.saved("condition")
        # PyTorch: where(condition, grad, 0) and where(condition, 0, grad), the zero a
        # number (no graph behind it)
        ga = where(c, g, 0.0) if self.needs_a else None
        gb = where(c, 0.0, g) if self.needs_b else None
        return ga, gb

    def explain(self, c: Ctx) -> Formula:
        cond = c.saved("condition") != 0
        la = Local("1 where condition, else 0", cond * 1.0) if c.node.needs_a else None
        lb = Local("0 where condition, else 1", (~cond) * 1.0) if c.node.needs_b else None
        return Formula(f"where(condition, {c.sym(0)}, {c.sym(1)})", [la, lb])


@tensor_method(torch=("where",))
def where(condition, input=None, other=None):  # noqa: A002 - PyTorch's names
    """Elements of `input` where `condition` holds, else of `other`."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor):
        raise TypeError(
            "where(): argument 'condition' (position 1) must be Tensor, not "
            + type(condition).__name__
        )
    if condition._dtype.category != BOOL:
        raise RuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{condition._dtype.scalar_name}"
        )
    if isinstance(input, Tensor) or isinstance(other, Tensor):
        a = input if isinstance(input, Tensor) else None
        b = other if isinstance(other, Tensor) else None
        if a is not None and b is not None:
            dt = dtypes.result_type(a, b)
        else:
            t, s = (a, other) if a is not None else (b, input)
            dt = dtypes.result_type(t, s)
        ad, bd, _, xp = _where_operands(input, other, dt)
    elif is_scalar(input) and is_scalar(other):
        dt = dtypes.result_type(input, other)
        xp = array_module(condition._data)
        ad, bd = np.asarray(input, dt.np), np.asarray(other, dt.np)
    else:
        raise TypeError("where(): expected Tensor or Number arguments")
    try:
        r = xp.where(condition._data, ad, bd)
    except ValueError:
        raise RuntimeError(
            "The size of tensor a must match the size of tensor b (where arguments do not "
            "broadcast)"
        ) from None
    res = wrap(as_array(r.astype(dt.np, copy=False)), dt)
    if needs_grad(input, other):
        node = WhereBackward0()
        node.needs_a = isinstance(input, Tensor) and input._requires_grad
        node.needs_b = isinstance(other, Tensor) and other._requires_grad
        node.save("condition", condition)
        record(node, (input, other), res)  # the condition gets no edge, as in PyTorch
    return res


def _where_operands(a, b, dt):
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return binary_operands(a, b, dt)
    if isinstance(a, Tensor):
        ad, bd, _, xp = binary_operands(a, b, dt)
        return ad, bd, dt, xp
    bd, ad, _, xp = binary_operands(b, a, dt)
    return ad, bd, dt, xp


def _where_method(self, condition, other):
    """self.where(condition, y) is torch.where(condition, self, y): this tensor's
    elements where condition is True, y's elsewhere."""
    return where(condition, self, other)


install("where", _where_method)
