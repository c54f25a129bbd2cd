"""A tensor with a Python number (or two tensors of promoted dtype) through one NumPy
ufunc, and the number-operand ops other ops' backward formulas record: PyTorch's internal
mul.Scalar, add.Scalar and div.Scalar (MulBackward1, AddBackward1, DivBackward1), which
keep the number rather than saving a tensor."""

from __future__ import annotations

import numpy as np

from gradshell.core import dtypes
from gradshell.ops.base import (
    FLOAT,
    Node,
    Tensor,
    array_module,
    as_array,
    binary_operands,
    broadcast_fail,
    is_scalar,
    needs_grad,
    record,
    wrap,
)
from gradshell.ops.explanation import (
    Ctx,
    Formula,
    Local,
    const,
    num,
    wrap_sym,
)


def _apply(ufunc_name: str, a, b, dtype=None):
    ad, bd, dt, xp = binary_operands(a, b, dtype)
    if dt.np == np.float16 and ufunc_name in _OPMATH_SCALAR:
        ad, bd = _half_scalar(a, ad), _half_scalar(b, bd)
    try:
        r = getattr(xp, ufunc_name)(ad, bd)
    except ValueError:
        raise broadcast_fail(a, b) from None
    if r.dtype != dt.np:
        r = r.astype(dt.np)
    return wrap(as_array(r), dt)


#: float16 ops whose CPU kernel takes a number operand in float32 (add and sub round it
#: to float16 first, as NumPy does)
_OPMATH_SCALAR = frozenset({"multiply", "true_divide", "divide"})


def _half_scalar(operand, data):
    """A number (or 0-d tensor of another dtype) with a float16 tensor: PyTorch's kernels
    take it in float32, their compute type, rather than rounded to float16 first."""
    if is_scalar(operand) and not isinstance(operand, bool):
        return np.float32(operand)
    if (
        isinstance(operand, Tensor)
        and operand._data.ndim == 0
        and operand._data.dtype != np.float16
    ):
        return np.float32(operand._data)
    return data


def _true_div_dtype(a, b):
    dt = dtypes.result_type(a, b)
    if dt.category != FLOAT:
        dt = dtypes.get_default_dtype()
    return dt


class DivBackward1(Node):
    """Division by a number inside a composite op (div.Scalar): 1/s, kept, never freed."""

    def backward(self, g):
        # PyTorch divides by the number itself (div.Scalar), so a graph built with
        # create_graph=True records DivBackward1 again, not DivBackward0
        return (div_scalar(g, self.other),)

    def explain(self, c: Ctx) -> Formula:
        k = c.attr("other")
        return Formula(f"{wrap_sym(c.sym(0))}/{num(k)}", [Local(f"1/{num(k)}", 1 / k, exact=True)])


def div_scalar(self: Tensor, other) -> Tensor:
    """self / other for a Python number, recorded as PyTorch's internal div.Scalar
    (DivBackward1, which keeps the number rather than saving a tensor)."""
    res = _apply("true_divide", self, other, _true_div_dtype(self, other))
    if needs_grad(self):
        node = DivBackward1()
        node.other = other
        record(node, (self,), res)
    return res


class MulBackward1(Node):
    """Multiplication by a number inside a composite op (mul.Scalar): the number is kept,
    never freed."""

    def backward(self, g):
        # grad * other with other a number is mul.Scalar in PyTorch: MulBackward1 again
        return (mul_scalar(g, self.other),)

    def explain(self, c: Ctx) -> Formula:
        k = c.attr("other")
        return Formula(f"{wrap_sym(c.sym(0))}·{num(k)}", [const(k)])


def mul_scalar(self: Tensor, other) -> Tensor:
    """self * other for a Python number, recorded as PyTorch's internal mul.Scalar
    (MulBackward1, which keeps the number rather than saving a tensor)."""
    res = _apply("multiply", self, other)
    if needs_grad(self):
        node = MulBackward1()
        node.other = other
        record(node, (self,), res)
    return res


class AddBackward1(Node):
    """Adding a number inside a composite op (add.Scalar): the gradient passes through."""

    def backward(self, g):
        return (g,)

    def explain(self, c: Ctx) -> Formula:
        return Formula(f"{c.sym(0)} + c", [const(1)])


def add_scalar(self: Tensor, other) -> Tensor:
    """self + other for a Python number, recorded as PyTorch's internal add.Scalar
    (AddBackward1)."""
    res = _apply("add", self, other)
    if needs_grad(self):
        record(AddBackward1(), (self,), res)
    return res


class SubBackward1(Node):
    """Subtracting a number inside a composite op (sub.Scalar): the gradient passes
    through."""

    def backward(self, g):
        return (g,)

    def explain(self, c: Ctx) -> Formula:
        return Formula(f"{c.sym(0)} − c", [const(1)])


def sub_scalar(self: Tensor, other) -> Tensor:
    """self - other for a Python number, recorded as PyTorch's internal sub.Scalar
    (SubBackward1); a learner's `x - 1` wraps the number instead (SubBackward0)."""
    res = _apply("subtract", self, other)
    if needs_grad(self):
        record(SubBackward1(), (self,), res)
    return res


def _filled_like(number, t: Tensor) -> Tensor:
    xp = array_module(t._data)
    return wrap(as_array(xp.full(t._data.shape, number, dtype=t._data.dtype)), t._dtype)


def number_minus(number, t: Tensor) -> Tensor:
    """number - t as PyTorch's C++ formulas write it: its `Scalar - Tensor` fills a tensor
    like t with the number and subtracts t in place, so the graph records SubBackward0
    (not RsubBackward1, which is what a learner's `1 - x` records)."""
    return _filled_like(number, t) - t


def number_over(number, t: Tensor) -> Tensor:
    """number / t as PyTorch's C++ formulas write it (fill, then divide in place):
    DivBackward0."""
    return _filled_like(number, t) / t
