"""Elementwise number handling: frac, fmod, deg2rad / rad2deg, nan_to_num, signbit and
heaviside, with their in-place forms; and the adjoint views (H, mH, adjoint), which for
real tensors are transposes."""

from __future__ import annotations

import math

import numpy as np

from gradshell.core import dtypes, warn_once
from gradshell.ops.base import (
    FLOAT,
    Node,
    Tensor,
    array_module,
    as_array,
    binary_operands,
    broadcast_fail,
    install,
    needs_grad,
    record,
    tensor_method,
    wrap,
)
from gradshell.ops.explanation import Ctx, Formula, Local, unary_formula
from gradshell.ops.inplace import _caller_level, apply_inplace
from gradshell.ops.registry import op
from gradshell.ops.scalar import mul_scalar
from gradshell.ops.shape import transpose


def _inplace(func, name: str):
    def method(self, *args, **kwargs):
        return apply_inplace(self, func, args, kwargs, name)

    method.__name__ = name
    method.__doc__ = f"In-place {name[:-1]}: records the same node."
    return method


def _floating(x: Tensor):
    """x's data in its float dtype (integers promote to the default float dtype)."""
    dt = x._dtype if x._dtype.category == FLOAT else dtypes.get_default_dtype()
    return x._data.astype(dt.np, copy=False), dt


# -- frac ----------------------------------------------------------------------------------------
class FracBackward0(Node):
    """frac(x) = x - trunc(x): slope 1 between the integers."""

    def backward(self, g):
        return (g,)

    explain = unary_formula("frac", "1", lambda c: 1.0)


def frac(self) -> Tensor:
    """The fractional part, x - trunc(x) (sign kept)."""
    if self._dtype.category != FLOAT:
        raise NotImplementedError(f"\"frac_cpu\" not implemented for '{self._dtype.scalar_name}'")
    xp = array_module(self._data)
    res = wrap(as_array(self._data - xp.trunc(self._data)), self._dtype)
    if needs_grad(self):
        record(FracBackward0(), (self,), res)
    return res


op("frac", torch=("frac",), inplace=("frac_",), inplace_fn=_inplace(frac, "frac_"))(frac)


# -- deg2rad / rad2deg ---------------------------------------------------------------------------
_DEG2RAD = math.pi / 180.0
_RAD2DEG = 180.0 / math.pi


def _scaled(self: Tensor, factor: float, node_cls) -> Tensor:
    data, dt = _floating(self)
    # a wrapped Python number: multiplied in the tensor's own precision
    res = wrap(as_array(data * np.dtype(dt.np).type(factor)), dt)
    if needs_grad(self):
        record(node_cls(), (self,), res)
    return res


class Deg2RadBackward0(Node):
    """d (x·π/180)/dx = π/180."""

    def backward(self, g):
        return (mul_scalar(g, _DEG2RAD),)

    explain = unary_formula("deg2rad", "π/180", lambda c: _DEG2RAD)


class Rad2DegBackward0(Node):
    """d (x·180/π)/dx = 180/π."""

    def backward(self, g):
        return (mul_scalar(g, _RAD2DEG),)

    explain = unary_formula("rad2deg", "180/π", lambda c: _RAD2DEG)


def deg2rad(self) -> Tensor:
    """Degrees to radians: x·π/180."""
    return _scaled(self, _DEG2RAD, Deg2RadBackward0)


def rad2deg(self) -> Tensor:
    """Radians to degrees: x·180/π."""
    return _scaled(self, _RAD2DEG, Rad2DegBackward0)


op("deg2rad", torch=("deg2rad",), inplace=("deg2rad_",), inplace_fn=_inplace(deg2rad, "deg2rad_"))(
    deg2rad
)
op("rad2deg", torch=("rad2deg",), inplace=("rad2deg_",), inplace_fn=_inplace(rad2deg, "rad2deg_"))(
    rad2deg
)


# -- fmod ----------------------------------------------------------------------------------------
class FmodBackward0(Node):
    """fmod(x, c) with a number c: slope 1 in x."""

    def backward(self, g):
        return (g,)

    explain = unary_formula("fmod", "1", lambda c: 1.0)


class FmodBackward1(Node):
    """fmod(x, y) = x - trunc(x/y)·y: x gets grad, y gets -grad·trunc(x/y)."""

    def backward(self, g):
        x, y = self.saved("self"), self.saved("other")
        gx = g if self.needs[0] else None
        gy = -g * x.div(y, rounding_mode="trunc") if self.needs[1] else None
        return gx, gy

    def explain(self, c: Ctx) -> Formula:
        x, y = c.saved("self"), c.saved("other")
        return Formula(
            f"fmod({c.sym(0)}, {c.sym(1)})",
            [Local("1", 1.0, exact=True), Local("-trunc(x/y)", -np.trunc(x / y))],
        )


def fmod(self, other) -> Tensor:
    """The remainder of truncated division, with the sign of the dividend (C's fmod)."""
    a, b, dt, xp = binary_operands(self, other)
    if isinstance(other, Tensor):
        try:
            xp.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            raise broadcast_fail(self, other) from None
    if dt.category != FLOAT:
        if (np.asarray(b) == 0).any():
            raise RuntimeError("ZeroDivisionError")
    res = wrap(as_array(xp.fmod(a, b)).astype(dt.np, copy=False), dt)
    if isinstance(other, Tensor):
        if needs_grad(self, other):
            node = FmodBackward1()
            node.needs = (self._requires_grad, other._requires_grad)
            node.save("self", self)
            node.save("other", other)
            record(node, (self, other), res)
    elif needs_grad(self):
        record(FmodBackward0(), (self,), res)
    return res


op("fmod", torch=("fmod",), inplace=("fmod_",), inplace_fn=_inplace(fmod, "fmod_"))(fmod)


# -- nan_to_num ----------------------------------------------------------------------------------
class NanToNumBackward0(Node):
    """The replaced values are constants: the gradient passes only where x is finite."""

    def backward(self, g):
        x = self.saved("self")
        finite = array_module(x._data).isfinite(x._data)
        return (g * wrap(finite, dtypes.bool_),)

    def explain(self, c: Ctx) -> Formula:
        finite = np.isfinite(c.saved("self")) * 1.0
        return Formula(f"nan_to_num({c.sym(0)})", [Local("1 where finite, else 0", finite)])


def _limit(dt) -> float:
    if dt is dtypes.bfloat16:
        return 3.3895313892515355e38
    return float(np.finfo(dt.np).max)


def nan_to_num(self, nan: float = 0.0, posinf=None, neginf=None) -> Tensor:
    """NaN, +inf and -inf replaced by `nan`, `posinf` and `neginf` (by default 0 and the
    dtype's largest and lowest finite values)."""
    xp = array_module(self._data)
    data = self._data
    if self._dtype.category == FLOAT:
        top = _limit(self._dtype)
        hi = top if posinf is None else posinf
        lo = -top if neginf is None else neginf
        data = xp.where(xp.isnan(data), nan, data)
        data = xp.where(xp.isposinf(data), hi, data)
        data = xp.where(xp.isneginf(data), lo, data).astype(self._dtype.np)
    else:
        data = data.copy()
    res = wrap(as_array(data), self._dtype)
    if needs_grad(self):
        node = NanToNumBackward0()
        node.save("self", self)
        record(node, (self,), res)
    return res


op(
    "nan_to_num",
    torch=("nan_to_num",),
    inplace=("nan_to_num_",),
    inplace_fn=_inplace(nan_to_num, "nan_to_num_"),
)(nan_to_num)


# -- signbit, heaviside --------------------------------------------------------------------------
@tensor_method("signbit", torch=("signbit",))
def signbit(self) -> Tensor:
    """True where the sign bit is set (negative numbers and -0.0)."""
    xp = array_module(self._data)
    return wrap(as_array(xp.signbit(self._data)), dtypes.bool_)


class HeavisideNotImplemented(Node):
    """heaviside has no derivative in PyTorch: its node fails in backward."""

    no_explanation = "PyTorch implements no derivative for heaviside"

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def backward(self, g):
        raise RuntimeError("derivative for aten::heaviside is not implemented")


def heaviside(self, values) -> Tensor:
    """0 where x < 0, `values` where x == 0, 1 where x > 0."""
    if not isinstance(values, Tensor):
        raise TypeError(
            "heaviside(): argument 'values' (position 1) must be Tensor, not "
            f"{type(values).__name__}"
        )
    if values._dtype is not self._dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    xp = array_module(self._data)
    try:
        data = xp.heaviside(self._data, values._data)
    except ValueError:
        raise broadcast_fail(self, values) from None
    res = wrap(as_array(data).astype(self._dtype.np, copy=False), self._dtype)
    if needs_grad(self, values):
        # the node keeps edges only to the inputs that require grad
        inputs = tuple(t for t in (self, values) if t._requires_grad)
        record(HeavisideNotImplemented(), inputs, res)
    return res


op(
    "heaviside",
    torch=("heaviside",),
    inplace=("heaviside_",),
    inplace_fn=_inplace(heaviside, "heaviside_"),
)(heaviside)


# -- adjoint views -------------------------------------------------------------------------------
_H_SCALAR = (
    "Tensor.H is deprecated on 0-D tensors. Consider using x.conj(). (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4335.)"
)
_ADJOINT_SCALAR = (
    "adjoint() is deprecated on 0-D tensors. Consider using x.conj(). (Triggered internally "
    "at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4390.)"
)


def _h(self: Tensor) -> Tensor:
    nd = self._data.ndim
    if nd == 0:
        warn_once.warn_once(_H_SCALAR, stacklevel=_caller_level())
        return self
    if nd != 2:
        hint = " For batches of matrices, consider using tensor.mH" if nd > 2 else ""
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {nd}-D tensor.{hint}"
        )
    return transpose(self, 0, 1)


def _batched_adjoint(self: Tensor, what: str) -> Tensor:
    nd = self._data.ndim
    if nd < 2:
        raise RuntimeError(
            f"tensor.{what} is only supported on matrices or batches of matrices. Got "
            f"{nd}-D tensor."
        )
    return transpose(self, -2, -1)


@tensor_method("adjoint", torch=("adjoint",))
def adjoint(self) -> Tensor:
    """The conjugate transpose of the last two dimensions (for real tensors, the transpose)."""
    if self._data.ndim == 0:
        warn_once.warn_once(_ADJOINT_SCALAR, stacklevel=_caller_level())
        return self
    return _batched_adjoint(self, "adjoint()")


install("H", property(_h, doc="The conjugate transpose of a matrix (a view)."))
install("mH", property(lambda self: _batched_adjoint(self, "mH"), doc="adjoint() (a view)."))
