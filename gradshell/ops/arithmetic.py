"""Elementwise arithmetic: add, sub, rsub, mul, div, pow, neg, with tensors or Python
numbers on either side, broadcasting, and PyTorch's node names (2.13 and 0.2)."""

from __future__ import annotations

import math

import numpy as np

from gradshell.core import dtypes, grad_mode
from gradshell.ops.base import (
    BOOL,
    FLOAT,
    INT,
    Node,
    Tensor,
    as_array,
    binary_operands,
    is_scalar,
    needs_grad,
    record,
    tensor_method,
    wrap,
)


def _broadcast_fail(a, b) -> RuntimeError:
    sa = a.shape if isinstance(a, Tensor) else ()
    sb = b.shape if isinstance(b, Tensor) else ()
    for i in range(1, max(len(sa), len(sb)) + 1):
        x = sa[-i] if i <= len(sa) else 1
        y = sb[-i] if i <= len(sb) else 1
        if x != y and x != 1 and y != 1:
            return RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {max(len(sa), len(sb)) - i}"
            )
    return RuntimeError("shapes cannot be broadcast together")


def _apply(ufunc_name: str, a, b, dtype=None):
    ad, bd, dt, xp = binary_operands(a, b, dtype)
    try:
        r = getattr(xp, ufunc_name)(ad, bd)
    except ValueError:
        raise _broadcast_fail(a, b) from None
    if r.dtype != dt.np:
        r = r.astype(dt.np)
    return wrap(as_array(r), dt)


_ndarray = np.ndarray


def _fast(ufunc, a, b, floats_only: bool = False):
    """The result for the common cases — NumPy tensors of one dtype, or a float tensor and a
    Python int/float — without the general promotion machinery; None otherwise."""
    ad = a._data
    if ad.__class__ is not _ndarray:
        return None
    dt = a._dtype
    if isinstance(b, Tensor):
        bd = b._data
        if b._dtype is not dt or bd.__class__ is not _ndarray:
            return None
        if floats_only and dt.category != FLOAT:
            return None
    else:
        bc = b.__class__
        if not (bc is float or bc is int) or dt.category != FLOAT:
            return None
        bd = b
    try:
        r = ufunc(ad, bd)
    except ValueError:
        raise _broadcast_fail(a, b) from None
    if r.__class__ is not _ndarray:
        r = np.asarray(r)
    return _new(r, dt)


_new = wrap


def _wants_grad(a, b) -> bool:
    return grad_mode.state.enabled and (
        a._requires_grad or (isinstance(b, Tensor) and b._requires_grad)
    )


def _check_other(other) -> bool:
    return isinstance(other, Tensor) or is_scalar(other)


# -- add ---------------------------------------------------------------------------------------
class AddBackward0(Node):
    """d(a + alpha*b): 1 for a, alpha for b."""

    legacy_name_02 = "AddBackward"

    def backward(self, g):
        alpha = self.alpha
        gb = g if alpha == 1 else g * alpha
        return g, gb


@tensor_method("add", "__add__", "__radd__")
def add(self, other, *, alpha=1, out=None):
    """self + alpha * other, broadcasting."""
    res = _fast(np.add, self, other) if alpha == 1 and out is None else None
    if res is None:
        if not _check_other(other):
            return NotImplemented
        b = other if alpha == 1 else (other * alpha)
        res = _apply("add", self, b)
    if _wants_grad(self, other):
        node = AddBackward0()
        node.alpha = alpha
        if not isinstance(other, Tensor) or not isinstance(self, Tensor):
            node.legacy_name_02 = "AddConstantBackward"
        record(node, (self, other), res)
    return _out(res, out)


# -- sub ---------------------------------------------------------------------------------------
def _check_bool_sub(a, b) -> None:
    if (isinstance(a, Tensor) and a._dtype.category == BOOL) and (
        (isinstance(b, Tensor) and b._dtype.category == BOOL) or isinstance(b, bool)
    ):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
            "or `logical_xor()` operator instead."
        )
    if (isinstance(a, Tensor) and a._dtype.category == BOOL) or (
        isinstance(b, Tensor) and b._dtype.category == BOOL
    ):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


class SubBackward0(Node):
    """d(a - alpha*b): 1 for a, -alpha for b."""

    legacy_name_02 = "SubBackward"

    def backward(self, g):
        alpha = self.alpha
        return g, (-g if alpha == 1 else g * -alpha)


@tensor_method("sub", "__sub__", "subtract")
def sub(self, other, *, alpha=1, out=None):
    """self - alpha * other, broadcasting."""
    res = _fast(np.subtract, self, other, True) if alpha == 1 and out is None else None
    if res is None:
        if not _check_other(other):
            return NotImplemented
        _check_bool_sub(self, other)
        b = other if alpha == 1 else (other * alpha)
        res = _apply("subtract", self, b)
    if _wants_grad(self, other):
        node = SubBackward0()
        node.alpha = alpha
        if not isinstance(other, Tensor):
            node.legacy_name_02 = "SubConstantBackward"
        record(node, (self, other), res)
    return _out(res, out)


class RsubBackward1(Node):
    """d(s - alpha*x)/dx = -alpha."""

    legacy_name_02 = "SubConstantBackward"

    def backward(self, g):
        return (-g if self.alpha == 1 else g * -self.alpha,)


class RsubBackward0(Node):
    """d(b - alpha*a): -alpha for a, 1 for b."""

    def backward(self, g):
        return (-g if self.alpha == 1 else g * -self.alpha), g


@tensor_method("__rsub__")
def rsub(self, other, *, alpha=1):
    """other - alpha * self (the reflected subtraction)."""
    if not _check_other(other):
        return NotImplemented
    _check_bool_sub(self, other)
    a = self if alpha == 1 else self * alpha
    res = _apply("subtract", other, a.detach() if isinstance(a, Tensor) else a)
    if needs_grad(self, other):
        if isinstance(other, Tensor):
            node = RsubBackward0()
            node.alpha = alpha
            record(node, (self, other), res)
        else:
            node = RsubBackward1()
            node.alpha = alpha
            record(node, (self,), res)
    return res


# -- mul ---------------------------------------------------------------------------------------
class MulBackward0(Node):
    """d(a*b): b for a, a for b."""

    legacy_name_02 = "MulBackward"

    def backward(self, g):
        ga = g * self.saved("other") if self.needs_a else None
        gb = g * self.saved("self") if self.needs_b else None
        return ga, gb


@tensor_method("mul", "__mul__", "__rmul__", "multiply")
def mul(self, other, *, out=None):
    """self * other, broadcasting."""
    res = _fast(np.multiply, self, other) if out is None else None
    if res is None:
        if not _check_other(other):
            return NotImplemented
        res = _apply("multiply", self, other)
    if _wants_grad(self, other):
        node = MulBackward0()
        a_rg = isinstance(self, Tensor) and self._requires_grad
        b_rg = isinstance(other, Tensor) and other._requires_grad
        node.needs_a, node.needs_b = a_rg, b_rg
        if a_rg:
            if isinstance(other, Tensor):
                node.save("other", other)
            else:
                node.save_scalar("other", other)
                node.legacy_name_02 = "MulConstantBackward"
        if b_rg:
            node.save("self", self)
        record(node, (self, other), res)
    return _out(res, out)


# -- div ---------------------------------------------------------------------------------------
def _true_div_dtype(a, b):
    dt = dtypes.result_type(a, b)
    if dt.category != FLOAT:
        dt = dtypes.get_default_dtype()
    return dt


class DivBackward0(Node):
    """d(a/b): 1/b for a, -a/b² for b."""

    legacy_name_02 = "DivBackward"

    def backward(self, g):
        other = self.saved("other")
        ga = g / other if self.needs_a else None
        gb = None
        if self.needs_b:
            a = self.saved("self")
            gb = -g * a / (other * other)
        return ga, gb


@tensor_method("div", "__truediv__", "divide", "true_divide")
def div(self, other, *, rounding_mode=None, out=None):
    """self / other (true division unless rounding_mode is 'trunc' or 'floor')."""
    if not _check_other(other):
        return NotImplemented
    if rounding_mode is not None:
        return _div_rounding(self, other, rounding_mode)
    res = _fast(np.true_divide, self, other, True) if out is None else None
    if res is None:
        res = _apply("true_divide", self, other, _true_div_dtype(self, other))
    if _wants_grad(self, other):
        node = DivBackward0()
        a_rg = self._requires_grad
        b_rg = isinstance(other, Tensor) and other._requires_grad
        node.needs_a, node.needs_b = a_rg, b_rg
        if isinstance(other, Tensor):
            node.save("other", other)
        else:
            node.save_scalar("other", other)
            node.legacy_name_02 = "DivConstantBackward"
        if b_rg:
            node.save("self", self)
        record(node, (self, other), res)
    return _out(res, out)


def _div_rounding(a, b, mode):
    if mode not in ("trunc", "floor"):
        raise ValueError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'"
        )
    dt = dtypes.result_type(a, b)
    q = _apply("true_divide", a, b, dt if dt.category == FLOAT else None)
    if dt.category != FLOAT:
        if _has_zero(b):
            raise ZeroDivisionError("ZeroDivisionError")
        if mode == "floor":
            return _apply("floor_divide", a, b, dt)
        return wrap(_trunc_int(a, b, dt), dt)
    from gradshell.ops import unary

    return unary.floor(q) if mode == "floor" else unary.trunc(q)


def _trunc_int(a, b, dt):
    ad, bd, _, xp = binary_operands(a, b, dt)
    return as_array(xp.trunc(xp.true_divide(ad, bd)).astype(dt.np))


def _has_zero(b) -> bool:
    if isinstance(b, Tensor):
        return bool((b._data == 0).any())
    return b == 0


@tensor_method("__rtruediv__")
def rdiv(self, other):
    """other / self, computed as PyTorch does: reciprocal(self) * other."""
    if not _check_other(other):
        return NotImplemented
    from gradshell.ops.unary import reciprocal

    return mul(reciprocal(self), other)


@tensor_method("floor_divide", "__floordiv__")
def floor_divide(self, other):
    """Elementwise floor(self / other), no gradient."""
    if not _check_other(other):
        return NotImplemented
    dt = dtypes.result_type(self, other)
    if dt.category != FLOAT and _has_zero(other):
        raise ZeroDivisionError("ZeroDivisionError")
    return _apply("floor_divide", self, other, dt)


@tensor_method("__rfloordiv__")
def rfloordiv(self, other):
    """other // self."""
    if not _check_other(other):
        return NotImplemented
    dt = dtypes.result_type(self, other)
    if dt.category != FLOAT and bool((self._data == 0).any()):
        raise ZeroDivisionError("ZeroDivisionError")
    return _apply("floor_divide", other, self, dt)


class RemainderBackward0(Node):
    """d(a mod b)/da = 1."""

    def backward(self, g):
        return (g,)


@tensor_method("remainder", "__mod__")
def remainder(self, other):
    """Python-style modulus (sign of the divisor)."""
    if not _check_other(other):
        return NotImplemented
    dt = dtypes.result_type(self, other)
    if dt.category != FLOAT and _has_zero(other):
        raise RuntimeError("ZeroDivisionError")
    res = _apply("remainder", self, other, dt)
    if needs_grad(self) and not isinstance(other, Tensor):
        record(RemainderBackward0(), (self,), res)
    return res


@tensor_method("__rmod__")
def rremainder(self, other):
    """other % self."""
    if not _check_other(other):
        return NotImplemented
    return _apply("remainder", other, self, dtypes.result_type(self, other))


# -- pow ---------------------------------------------------------------------------------------
class PowBackward0(Node):
    """d(x**s)/dx = s * x**(s-1) for a Python-number exponent s."""

    legacy_name_02 = "PowConstantBackward"

    def backward(self, g):
        e = self.saved("exponent")
        x = self.saved("self")
        if e == 0:
            return (g * 0,)
        return (g * (x ** (e - 1) * e),)


class PowBackward1(Node):
    """d(a**b): b*a**(b-1) for a, a**b * log(a) for b."""

    legacy_name_02 = "PowBackward"

    def backward(self, g):
        from gradshell.ops.unary import log, where

        a = self.saved("self")
        b = self.saved("exponent")
        ga = gb = None
        if self.needs_a:
            ga = g * b * a ** (b - 1)
            ga = where((b == 0).detach(), ga * 0, ga)
        if self.needs_b:
            r = self.saved("result")
            gb = g * r * log(a)
            gb = where(((a == 0) & (b >= 0)).detach(), gb * 0, gb)
        return ga, gb


class PowBackward2(Node):
    """d(s**x)/dx = s**x * log(s) for a Python-number base s."""

    legacy_name_02 = "PowConstantBackward"

    def backward(self, g):
        base = self.saved("self")
        r = self.saved("result")
        if base == 0:
            # d(0**x)/dx is 0 where x >= 0 (PyTorch masks the -inf of log(0) there)
            from gradshell.ops.unary import where

            x = self.saved("exponent")
            return (where((x >= 0).detach(), g * 0, g * r * -math.inf),)
        return (g * r * math.log(base),)


def _pow_dtype(a, b):
    return dtypes.result_type(a, b)


def _check_int_pow(a, b, dt) -> None:
    if dt.category != INT:
        return
    neg = (b < 0) if is_scalar(b) else bool((b._data < 0).any())
    if neg:
        raise RuntimeError("Integers to negative integer powers are not allowed.")


@tensor_method("pow", "__pow__")
def pow(self, exponent, *, out=None):  # noqa: A001 - PyTorch's name
    """self ** exponent, elementwise."""
    if not _check_other(exponent):
        return NotImplemented
    dt = _pow_dtype(self, exponent)
    _check_int_pow(self, exponent, dt)
    res = _apply("power", self, exponent, dt)
    if needs_grad(self, exponent):
        if isinstance(exponent, Tensor):
            node = PowBackward1()
            node.needs_a = self._requires_grad
            node.needs_b = exponent._requires_grad
            node.save("self", self)
            node.save("exponent", exponent)
            if exponent._requires_grad:
                node.save("result", res, is_output=True)
            record(node, (self, exponent), res)
        else:
            node = PowBackward0()
            node.save("self", self)
            node.save_scalar("exponent", exponent)
            record(node, (self,), res)
    return _out(res, out)


@tensor_method("__rpow__")
def rpow(self, other):
    """other ** self for a Python-number base."""
    if not is_scalar(other):
        return NotImplemented
    dt = _pow_dtype(self, other)
    res = _apply("power", other, self, dt)
    if needs_grad(self):
        node = PowBackward2()
        node.save_scalar("self", other)
        node.save("exponent", self)
        node.save("result", res, is_output=True)
        record(node, (self,), res)
    return res


# -- neg ---------------------------------------------------------------------------------------
class NegBackward0(Node):
    """d(-x)/dx = -1."""

    legacy_name_02 = "NegateBackward"

    def backward(self, g):
        return (-g,)


@tensor_method("neg", "__neg__", "negative")
def neg(self, *, out=None):
    """-self."""
    if self._dtype.category == BOOL:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
            "invert a mask, use the `~` or `logical_not()` operator instead."
        )
    from gradshell.core.device import array_module

    res = wrap(as_array(array_module(self._data).negative(self._data)), self._dtype)
    if needs_grad(self):
        record(NegBackward0(), (self,), res)
    return _out(res, out)


@tensor_method("__pos__", "positive")
def positive(self):
    """+self: the tensor itself."""
    return self


def _out(res: Tensor, out):
    if out is None:
        return res
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    from gradshell.ops.inplace import write_out

    return write_out(out, res)
