"""Elementwise arithmetic: add, sub, rsub, mul, div, pow, neg, atan2, lerp, addcmul,
addcdiv, maximum, minimum, clamp and the in-place variants (add_, pow_...), with tensors
or Python numbers on either side, broadcasting, and PyTorch's node names (2.13 and 0.2)."""

from __future__ import annotations

import math

import numpy as np

from gradshell.core import dtypes, kernels
from gradshell.ops import registry, unary
from gradshell.ops.base import (
    BOOL,
    FLOAT,
    INT,
    Node,
    Tensor,
    array_module,
    as_array,
    binary_operands,
    broadcast_fail,
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
    Unavailable,
    const,
    needs,
    num,
    operand,
    wrap_sym,
)
from gradshell.ops.inplace import apply_inplace, fast_binary, write_out
from gradshell.ops.scalar import (
    _apply,
    _true_div_dtype,
    mul_scalar,
    sub_scalar,
)
from gradshell.ops.selection import where
from gradshell.ops.unary import log, reciprocal, sqrt

_broadcast_fail = broadcast_fail


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
        if not (bc is float or bc is int) or dt.category != FLOAT or ad.dtype == np.float16:
            return None  # (float16 with a number: see _half_scalar)
        bd = b
    try:
        r = ufunc(ad, bd)
    except ValueError:
        raise _broadcast_fail(a, b) from None
    if r.__class__ is not _ndarray:
        r = np.asarray(r)
    return _new(r, dt)


_new = wrap


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

    def explain(self, c: Ctx) -> Formula:
        a, b = wrap_sym(c.sym(0)), wrap_sym(c.sym(1))
        alpha = c.attr("alpha")
        expr = f"{a} + {b}" if alpha == 1 else f"{a} + {num(alpha)}·{b}"
        one, other = const(1), const(alpha)
        if c.same_input:
            one.merged = other.merged = num(1 + alpha)
        return Formula(expr, [one, other])


@tensor_method("add", "__add__", "__radd__", torch=("add",))
def add(self, other, *, alpha=1, out=None):
    """self + alpha * other, broadcasting."""
    res = _fast(np.add, self, other) if alpha == 1 and out is None else None
    if res is None:
        if not _check_other(other):
            return NotImplemented
        b = other if alpha == 1 else (other * alpha)
        res = _apply("add", self, b)
    if needs_grad(self, other):
        node = AddBackward0()
        node.alpha = alpha
        if not isinstance(other, Tensor) or not isinstance(self, Tensor):
            node.legacy_name_02 = "AddConstantBackward"
            node.other = other  # the Python number, for explanations
        record(node, (self, other), res)
    return _out(res, out)


# -- sub ---------------------------------------------------------------------------------------
def _is_boolish(x) -> bool:
    return isinstance(x, bool) or (isinstance(x, Tensor) and x._dtype.category == BOOL)


def _check_bool_sub(a, b) -> None:
    """PyTorch refuses subtraction with any bool operand (tensor or Python bool)."""
    if _is_boolish(a) and _is_boolish(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
            "or `logical_xor()` operator instead."
        )
    if _is_boolish(a) or _is_boolish(b):
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

    def explain(self, c: Ctx) -> Formula:
        a, b = wrap_sym(c.sym(0)), wrap_sym(c.sym(1))
        alpha = c.attr("alpha")
        expr = f"{a} − {b}" if alpha == 1 else f"{a} − {num(alpha)}·{b}"
        first, second = const(1), const(-alpha)
        if c.same_input:
            first.merged = second.merged = num(1 - alpha)
        return Formula(expr, [first, second])


@tensor_method("sub", "__sub__", "subtract", torch=("sub", "subtract"))
def sub(self, other, *, alpha=1, out=None):
    """self - alpha * other, broadcasting."""
    res = _fast(np.subtract, self, other, True) if alpha == 1 and out is None else None
    if res is None:
        if not _check_other(other):
            return NotImplemented
        _check_bool_sub(self, other)
        b = other if alpha == 1 else (other * alpha)
        res = _apply("subtract", self, b)
    if needs_grad(self, other):
        node = SubBackward0()
        node.alpha = alpha
        if not isinstance(other, Tensor):
            node.legacy_name_02 = "SubConstantBackward"
            node.other = other  # the Python number, for explanations
        record(node, (self, other), res)
    return _out(res, out)


class RsubBackward1(Node):
    """d(s - alpha*x)/dx = -alpha."""

    legacy_name_02 = "SubConstantBackward"

    def backward(self, g):
        return (-g if self.alpha == 1 else g * -self.alpha,)

    def explain(self, c: Ctx) -> Formula:
        x = wrap_sym(c.sym(0))
        alpha = c.attr("alpha")
        other = getattr(c.node, "other", None)  # the Python number the tensor was subtracted from
        s = num(other) if isinstance(other, (int, float)) and not isinstance(other, bool) else "c"
        expr = f"{s} − {x}" if alpha == 1 else f"{s} − {num(alpha)}·{x}"
        return Formula(expr, [const(-alpha)])


class RsubBackward0(Node):
    """d(b - alpha*a): -alpha for a, 1 for b."""

    def backward(self, g):
        return (-g if self.alpha == 1 else g * -self.alpha), g

    def explain(self, c: Ctx) -> Formula:
        a, b = wrap_sym(c.sym(0)), wrap_sym(c.sym(1))
        alpha = c.attr("alpha")
        expr = f"{b} − {a}" if alpha == 1 else f"{b} − {num(alpha)}·{a}"
        return Formula(expr, [const(-alpha), const(1)])


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
            node.other = other  # the Python number, for explanations
            record(node, (self,), res)
    return res


def _rsub_function(input, other, *, alpha=1):  # noqa: A002 - PyTorch's name
    """other - alpha * input."""
    return rsub(input, other, alpha=alpha)


# torch.rsub takes `input` (Tensor.__rsub__ takes `self`): its own function, named rsub
_rsub_function.__name__ = _rsub_function.__qualname__ = "rsub"
registry.function("rsub", _rsub_function)


# -- mul ---------------------------------------------------------------------------------------
class MulBackward0(Node):
    """d(a*b): b for a, a for b."""

    legacy_name_02 = "MulBackward"

    def backward(self, g):
        ga = g * self.saved("other") if self.needs_a else None
        gb = g * self.saved("self") if self.needs_b else None
        return ga, gb

    def explain(self, c: Ctx) -> Formula:
        needs_a = getattr(c.node, "needs_a", True)
        needs_b = getattr(c.node, "needs_b", True)
        la = lb = None
        sa, sb = c.sym(0), c.sym(1)
        if needs_a:
            sb, vb, exact_b = operand(c, "other", 1)
            la = Local(sb, vb, exact=exact_b)
        if needs_b:
            sa, va, _ = operand(c, "self", 0)
            lb = Local(sa, va)
        if c.same_input and la is not None and lb is not None:
            sym = c.sym(0)
            expr = f"{wrap_sym(sym)}·{wrap_sym(sym)}"
            la.merged = lb.merged = f"2{wrap_sym(sym)}"
            return Formula(expr, [la, lb])
        return Formula(f"{wrap_sym(sa)}·{wrap_sym(sb)}", [la, lb])


@tensor_method("mul", "__mul__", "__rmul__", "multiply", torch=("mul", "multiply"))
def mul(self, other, *, out=None):
    """self * other, broadcasting."""
    res = _fast(np.multiply, self, other) if out is None else None
    if res is None:
        if not _check_other(other):
            return NotImplemented
        res = _apply("multiply", self, other)
    if needs_grad(self, other):
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
class DivBackward0(Node):
    """d(a/b): 1/b for a, -a/b² for b."""

    legacy_name_02 = "DivBackward"

    def backward(self, g):
        other = self.saved("other")
        ga = g / other if self.needs_a else None
        gb = None
        if self.needs_b:
            a = self.saved("self")
            gb = -g * ((a / other) / other)  # as PyTorch: other² could underflow to 0
        return ga, gb

    def explain(self, c: Ctx) -> Formula:
        sb, vb, exact_b = operand(c, "other", 1)
        a = wrap_sym(c.sym(0))
        b = wrap_sym(sb)
        la = lb = None
        if getattr(c.node, "needs_a", True):
            la = Local(f"1/{b}", 1.0 / vb if exact_b else 1.0 / vb, exact=False)
        if getattr(c.node, "needs_b", False):
            va = c.saved("self")
            lb = Local(f"−{a}/{b}²", -va / (vb * vb))
        return Formula(f"{a}/{b}", [la, lb])


@tensor_method(
    "div", "__truediv__", "divide", "true_divide", torch=("div", "divide", "true_divide")
)
def div(self, other, *, rounding_mode=None, out=None):
    """self / other (true division unless rounding_mode is 'trunc' or 'floor')."""
    if not _check_other(other):
        return NotImplemented
    if rounding_mode is not None:
        return _div_rounding(self, other, rounding_mode)
    res = _fast(np.true_divide, self, other, True) if out is None else None
    if res is None:
        res = _apply("true_divide", self, other, _true_div_dtype(self, other))
    if needs_grad(self, other):
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
            raise RuntimeError("ZeroDivisionError")
        if mode == "floor":
            return _apply("floor_divide", a, b, dt)
        return wrap(_trunc_int(a, b, dt), dt)
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
    return mul(reciprocal(self), other)


@tensor_method("floor_divide", "__floordiv__", torch=("floor_divide",))
def floor_divide(self, other):
    """Elementwise floor(self / other), no gradient."""
    if not _check_other(other):
        return NotImplemented
    dt = dtypes.result_type(self, other)
    if dt.category != FLOAT and _has_zero(other):
        raise RuntimeError("ZeroDivisionError")
    return _apply("floor_divide", self, other, dt)


@tensor_method("__rfloordiv__")
def rfloordiv(self, other):
    """other // self."""
    if not _check_other(other):
        return NotImplemented
    dt = dtypes.result_type(self, other)
    if dt.category != FLOAT and bool((self._data == 0).any()):
        raise RuntimeError("ZeroDivisionError")
    return _apply("floor_divide", other, self, dt)


class RemainderBackward0(Node):
    """d(a mod b)/da = 1."""

    def backward(self, g):
        return (g,)

    def explain(self, c: Ctx) -> Formula:
        return Formula(f"{wrap_sym(c.sym(0))} mod c", [const(1)])


@tensor_method("remainder", "__mod__", torch=("remainder",))
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
        return (g * mul_scalar(x ** (e - 1), e),)

    def explain(self, c: Ctx) -> Formula:
        x = wrap_sym(c.sym(0))
        n = c.saved("exponent")
        xv = c.saved("self")
        if isinstance(n, np.ndarray):
            raise Unavailable("tensor exponent")
        if n == 0:
            return Formula(f"{x}^0", [const(0)])
        if n == 1:
            rhs = "1"
        elif n == 2:
            rhs = f"2{x}"
        else:
            rhs = f"{num(n)}·{x}^{num(n - 1)}"
        return Formula(f"{x}^{num(n)}", [Local(rhs, n * xv ** (n - 1))])


class PowBackward1(Node):
    """d(a**b): b*a**(b-1) for a, a**b * log(a) for b."""

    legacy_name_02 = "PowBackward"

    def backward(self, g):
        a = self.saved("self")
        b = self.saved("exponent")
        ga = gb = None
        # PyTorch's pow_backward_self and pow_backward_exponent: a zero (a constant, no
        # graph) where the formula does not apply, b - 1 as sub.Scalar
        if self.needs_a:
            ga = g * (b * a ** sub_scalar(b, 1))  # PyTorch's grouping: b·a^(b-1) first
            ga = where((b == 0).detach(), 0.0, ga)
        if self.needs_b:
            r = self.saved("result")
            gb = g * where(((b >= 0) & (a == 0)).detach(), 0.0, r * log(a))
        return ga, gb

    def explain(self, c: Ctx) -> Formula:
        a, b = wrap_sym(c.sym(0)), wrap_sym(c.sym(1))
        av = c.saved("self")
        bv = c.saved("exponent")
        la = lb = None
        if getattr(c.node, "needs_a", True):
            with np.errstate(all="ignore"):
                val = np.where(bv == 0, 0.0, bv * av ** (bv - 1))
            la = Local(f"{b}·{a}^({b}−1)", val)
        if getattr(c.node, "needs_b", False):
            with np.errstate(all="ignore"):
                val = np.where((av == 0) & (bv >= 0), 0.0, av**bv * np.log(av))
            lb = Local(f"{a}^{b}·ln {a}", val)
        return Formula(f"{a}^{b}", [la, lb])


class PowBackward2(Node):
    """d(s**x)/dx = s**x * log(s) for a Python-number base s."""

    legacy_name_02 = "PowConstantBackward"

    def backward(self, g):
        base = self.saved("self")
        r = self.saved("result")
        if base == 0:
            # d(0**x)/dx is 0 where x >= 0 (PyTorch masks the -inf of log(0) there)
            x = self.saved("exponent")
            return (where((x >= 0).detach(), g * 0, g * r * -math.inf),)
        return (g * mul_scalar(r, math.log(base) if base > 0 else math.nan),)  # log(<0): nan

    def explain(self, c: Ctx) -> Formula:
        x = wrap_sym(c.sym(0))
        base = c.saved("self")
        r = c.saved("result")
        if isinstance(base, np.ndarray) or base <= 0:
            raise Unavailable("base ≤ 0")
        return Formula(
            f"{num(base)}^{x}", [Local(f"{num(base)}^{x}·ln {num(base)}", r * math.log(base))]
        )


def _pow_dtype(a, b):
    return dtypes.result_type(a, b)


def _check_int_pow(a, b, dt) -> None:
    if dt.category == BOOL:
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    # A negative Python-number exponent is refused; negative exponents inside an integer
    # tensor follow C integer arithmetic instead (see _int_pow).
    if dt.category == INT and is_scalar(b) and b < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def _int_pow(a, b, dt):
    """Integer a ** b with negative exponents in a tensor: 1/a^n truncated towards zero."""
    ad, bd, _, xp = binary_operands(a, b, dt)
    neg = bd < 0
    safe = xp.where(neg, 0, bd)
    r = xp.power(ad, safe)
    odd = (bd % 2) != 0
    small = xp.where(ad == 1, 1, xp.where(ad == -1, xp.where(odd, -1, 1), 0))
    return wrap(as_array(xp.where(neg, small, r).astype(dt.np)), dt)


@tensor_method("pow", "__pow__", torch=("pow",))
def pow(self, exponent, *, out=None):  # noqa: A001 - PyTorch's name
    """self ** exponent, elementwise."""
    if not _check_other(exponent):
        return NotImplemented
    dt = _pow_dtype(self, exponent)
    _check_int_pow(self, exponent, dt)
    if dt.category == INT and not is_scalar(exponent):
        res = _int_pow(self, exponent, dt)
    elif _special_exponent(self, exponent, dt):
        res = _special_pow(self, exponent, dt)
    else:
        res = _exact_pow(self, exponent, dt)
        if res is None:
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


def _exact_pow(x, e, dt):
    """PyTorch's float32 pow for a general exponent (Sleef's powf on vector blocks, the C
    library's pow on tails) when the exact kernels are on; None for everything else."""
    xd = getattr(x, "_data", None)
    if dt.np != np.float32 or not isinstance(xd, np.ndarray) or xd.dtype != np.float32:
        return None
    if kernels.lookup("pow", xd) is None:
        return None
    if is_scalar(e) and not isinstance(e, bool):
        if float(e) in (0.0, 1.0, 0.5, -0.5, -1.0, 2.0, 3.0, -2.0):  # PyTorch's own shortcuts
            return None
        return wrap(kernels.elementwise.pow_scalar(xd, float(e)), dt)
    ed = getattr(e, "_data", None)
    if isinstance(ed, np.ndarray) and ed.dtype == np.float32 and ed.shape == xd.shape:
        return wrap(kernels.elementwise.pow_tensor(xd, ed), dt)
    return None


def _special_exponent(x, e, dt) -> bool:
    return (
        is_scalar(e)
        and not isinstance(e, bool)
        and e in (3, -2, 0.5, -0.5)
        and dt.np in (np.float32, np.float64)
        and isinstance(x, Tensor)
    )


def _special_pow(x: Tensor, e, dt) -> Tensor:
    """PyTorch's CPU pow for exponents 3, -2, 0.5 and -0.5: x·x·x, 1/(x·x), sqrt(x),
    1/sqrt(x) (so the bits, and the sign of 1/sqrt(-0) = -inf, are PyTorch's rather than
    libm's pow)."""
    d = x._data if x._data.dtype == dt.np else x._data.astype(dt.np)
    xp = array_module(d)
    if e == 3:
        r = d * d * d
    elif e == -2:
        r = xp.reciprocal(d * d)
    elif e == 0.5:  # PyTorch's pow hands 0.5 to its sqrt kernel: so does gradshell
        r = sqrt(wrap(d, dt).detach())._data
    else:
        r = xp.reciprocal(xp.sqrt(d))
    return wrap(as_array(r), dt)


@tensor_method("__rpow__")
def rpow(self, other):
    """other ** self for a Python-number base."""
    if not is_scalar(other):
        return NotImplemented
    dt = _pow_dtype(self, other)
    res = _int_pow(other, self, dt) if dt.category == INT else _apply("power", other, self, dt)
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

    def explain(self, c: Ctx) -> Formula:
        return Formula(f"−{wrap_sym(c.sym(0))}", [const(-1)])


@tensor_method("neg", "__neg__", "negative", torch=("neg", "negative"))
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
    return write_out(out, res)


# -- atan2, lerp, addcmul/addcdiv, maximum/minimum, clamp ------------------------------


def _broadcast_fail_many(*operands) -> RuntimeError:
    """PyTorch's size-mismatch error for several operands: the first one that does not
    broadcast against the shape of those before it."""
    shape: tuple = ()
    for x in operands:
        s = tuple(x.shape) if isinstance(x, Tensor) else ()
        n = max(len(shape), len(s))
        a = (1,) * (n - len(shape)) + shape
        b = (1,) * (n - len(s)) + s
        for i, (p, q) in enumerate(zip(a, b, strict=True)):
            if p != q and p != 1 and q != 1:
                return RuntimeError(
                    f"The size of tensor a ({p}) must match the size of tensor b ({q}) at "
                    f"non-singleton dimension {i}"
                )
        shape = tuple(q if p == 1 else p for p, q in zip(a, b, strict=True))
    return RuntimeError("shapes cannot be broadcast together")


def _require_tensor(fname: str, argname: str, pos: int, x) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{fname}(): argument '{argname}' (position {pos}) must be Tensor, not "
            f"{type(x).__name__}"
        )


def _const(mask_data, dtype) -> Tensor:
    """A constant (no-grad) tensor of `dtype` from a boolean or numeric array."""
    return wrap(as_array(mask_data.astype(dtype.np, copy=False)), dtype)


class Atan2Backward0(Node):
    """d atan2(a, b): b/(a²+b²) for a, -a/(a²+b²) for b (0 where both are 0)."""

    legacy_name_02 = "Atan2Backward"

    def backward(self, g):
        a = self.saved("self")
        b = self.saved("other")
        # PyTorch's atan2_backward: recip = (self * self + other * other).reciprocal(),
        # zeroed where the denominator is 0 (in place: MaskedFillBackward0), then
        # grad * other * recip and grad * -self * recip
        denom = a * a + b * b
        recip = reciprocal(denom).masked_fill((denom == 0).detach(), 0)
        ga = g * b * recip if self.needs_a else None
        gb = g * -a * recip if self.needs_b else None
        return ga, gb

    def explain(self, c: Ctx) -> Formula:
        a, b = c.saved("self"), c.saved("other")
        sa, sb = wrap_sym(c.sym(0)), wrap_sym(c.sym(1))
        d = a * a + b * b
        safe = np.where(d == 0, 1.0, d)
        la = lb = None
        if getattr(c.node, "needs_a", True):
            la = Local(f"{sb}/({sa}² + {sb}²)", np.where(d == 0, 0.0, b / safe))
        if getattr(c.node, "needs_b", True):
            lb = Local(f"−{sa}/({sa}² + {sb}²)", np.where(d == 0, 0.0, -a / safe))
        return Formula(f"atan2({c.sym(0)}, {c.sym(1)})", [la, lb])


@tensor_method("atan2", "arctan2", torch=("atan2", "arctan2"))
def atan2(self, other) -> Tensor:
    """The angle of the point (other, self): elementwise arctan(self / other) by quadrant."""
    _require_tensor("atan2", "input", 1, self)
    _require_tensor("atan2", "other", 2, other)
    dt = dtypes.result_type(self, other)
    if dt.category != FLOAT:
        dt = dtypes.get_default_dtype()
    res = _apply("arctan2", self, other, dt)
    if needs_grad(self, other):
        node = Atan2Backward0()
        node.needs_a, node.needs_b = self._requires_grad, other._requires_grad
        node.save("self", self)
        node.save("other", other)
        record(node, (self, other), res)
    return res


class LerpBackward0(Node):
    """lerp with a number weight w: 1-w for start, w for end (w is kept, never freed)."""

    legacy_name_02 = "LerpBackward"

    def backward(self, g):
        w = self.weight
        return g * (1 - w), g * w

    def explain(self, c: Ctx) -> Formula:
        w = c.attr("weight")
        return Formula(f"lerp({c.sym(0)}, {c.sym(1)}, {num(w)})", [const(1 - w), const(w)])


class LerpBackward1(Node):
    """lerp with a tensor weight: 1-w for start, w for end, end-start for the weight."""

    legacy_name_02 = "LerpBackward"

    def backward(self, g):
        w = self.saved("weight")
        gs = g * (1 - w) if self.needs[0] else None
        ge = g * w if self.needs[1] else None
        gw = g * (self.saved("end") - self.saved("self")) if self.needs[2] else None
        return gs, ge, gw

    def explain(self, c: Ctx) -> Formula:
        s, e, ws = c.sym(0), c.sym(1), c.sym(2)
        w = c.saved("weight")
        ls = Local(f"1 − {wrap_sym(ws)}", 1 - w) if needs(c, 0) else None
        le = Local(ws, w) if needs(c, 1) else None
        lw = None
        if needs(c, 2):
            lw = Local(f"{wrap_sym(e)} − {wrap_sym(s)}", c.saved("end") - c.saved("self"))
        return Formula(f"lerp({s}, {e}, {ws})", [ls, le, lw])


def _lerp_data(xp, s, e, w):
    # As PyTorch computes it: from the nearer end, so lerp(a, b, 1) is exactly b.
    diff = e - s
    small = xp.abs(w) < 0.5
    return xp.where(small, s + diff * w, e - diff * (1 - w))


@tensor_method("lerp", torch=("lerp",))
def lerp(self, end, weight) -> Tensor:
    """start + weight * (end - start), elementwise, broadcasting."""
    _require_tensor("lerp", "input", 1, self)
    _require_tensor("lerp", "end", 2, end)
    dt = self._dtype
    if end._dtype is not dt:
        raise RuntimeError(
            f"expected dtype {dt.cpp_name} for `end` but got dtype {end._dtype.cpp_name}"
        )
    tensor_w = isinstance(weight, Tensor)
    if tensor_w and weight._dtype is not dt:
        raise RuntimeError(
            f"expected dtype {dt.cpp_name} for `weight` but got dtype {weight._dtype.cpp_name}"
        )
    if dt.category != FLOAT:
        kernel = "lerp_kernel_tensor" if tensor_w else "lerp_kernel_scalar"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dt.scalar_name}'")
    xp = array_module(self._data)
    wd = weight._data if tensor_w else dt.np.type(weight)
    try:
        shape = xp.broadcast_shapes(self._data.shape, end._data.shape)
        if tensor_w:
            shape = xp.broadcast_shapes(shape, weight._data.shape)
    except ValueError:
        raise _broadcast_fail_many(self, end, weight) from None
    r = _lerp_data(xp, self._data, end._data, wd)
    res = wrap(as_array(r.astype(dt.np, copy=False)), dt)
    if tensor_w:
        if needs_grad(self, end, weight):
            node = LerpBackward1()
            node.needs = (self._requires_grad, end._requires_grad, weight._requires_grad)
            node.save("self", self)
            node.save("end", end)
            node.save("weight", weight)
            record(node, (self, end, weight), res)
    elif needs_grad(self, end):
        node = LerpBackward0()
        node.weight = weight
        record(node, (self, end), res)
    return res


class AddcmulBackward0(Node):
    """d(a + v*t1*t2): 1 for a, v*t2 for t1, v*t1 for t2."""

    legacy_name_02 = "AddcmulBackward"

    def backward(self, g):
        v = self.value
        g1 = g * (self.saved("tensor2") * v) if self.needs[1] else None
        g2 = g * (self.saved("tensor1") * v) if self.needs[2] else None
        return g, g1, g2

    def explain(self, c: Ctx) -> Formula:
        v = c.attr("value")
        a, t1, t2 = wrap_sym(c.sym(0)), wrap_sym(c.sym(1)), wrap_sym(c.sym(2))
        k = "" if v == 1 else f"{num(v)}·"
        l1 = Local(f"{k}{t2}", v * c.saved("tensor2")) if needs(c, 1) else None
        l2 = Local(f"{k}{t1}", v * c.saved("tensor1")) if needs(c, 2) else None
        return Formula(f"{a} + {k}{t1}·{t2}", [const(1), l1, l2])


class AddcdivBackward0(Node):
    """d(a + v*t1/t2): 1 for a, v/t2 for t1, -v*t1/t2² for t2."""

    legacy_name_02 = "AddcdivBackward"

    def backward(self, g):
        v = self.value
        t2 = self.saved("tensor2")
        g1 = g * (v / t2) if self.needs[1] else None
        g2 = None
        if self.needs[2]:
            t1 = self.saved("tensor1")
            g2 = -g * (v * t1) / (t2 * t2)
        return g, g1, g2

    def explain(self, c: Ctx) -> Formula:
        v = c.attr("value")
        a, t1, t2 = wrap_sym(c.sym(0)), wrap_sym(c.sym(1)), wrap_sym(c.sym(2))
        k = "" if v == 1 else f"{num(v)}·"
        d = c.saved("tensor2")
        l1 = Local(f"{num(v)}/{t2}", v / d) if needs(c, 1) else None
        l2 = None
        if needs(c, 2):
            l2 = Local(f"−{k}{t1}/{t2}²", -v * c.saved("tensor1") / (d * d))
        return Formula(f"{a} + {k}{t1}/{t2}", [const(1), l1, l2])


def _three(fname: str, a, t1, t2, value, combine, node_cls, divide: bool):
    _require_tensor(fname, "input", 1, a)
    _require_tensor(fname, "tensor1", 2, t1)
    _require_tensor(fname, "tensor2", 3, t2)
    dt = dtypes.result_type(a, t1, t2)
    if divide and dt.category != FLOAT:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
            "float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes."
        )
    if dt.category == BOOL:
        raise NotImplementedError(f"\"{fname}_cpu_out\" not implemented for 'Bool'")
    if dt.category != FLOAT and isinstance(value, float):
        raise RuntimeError(
            "For integral input tensors, argument value must not be a floating point number."
        )
    xp = array_module(a._data)
    ad, bd, cd = (x._data.astype(dt.np, copy=False) for x in (a, t1, t2))
    try:
        r = combine(ad, bd, cd, dt.np.type(value))
    except ValueError:
        raise _broadcast_fail_many(a, t1, t2) from None
    res = wrap(as_array(xp.asarray(r).astype(dt.np, copy=False)), dt)
    if needs_grad(a, t1, t2):
        node = node_cls()
        node.value = value
        node.needs = (a._requires_grad, t1._requires_grad, t2._requires_grad)
        # Each factor is kept only when the other one needs its gradient, as PyTorch does.
        if t2._requires_grad:
            node.save("tensor1", t1)
        if t1._requires_grad or divide:  # addcdiv keeps tensor2 whatever needs grad
            node.save("tensor2", t2)
        record(node, (a, t1, t2), res)
    return res


@tensor_method("addcmul", torch=("addcmul",))
def addcmul(self, tensor1, tensor2, *, value=1) -> Tensor:
    """self + value * tensor1 * tensor2."""
    return _three(
        "addcmul",
        self,
        tensor1,
        tensor2,
        value,
        lambda a, b, c, v: a + b * v * c,  # (arrays first: a NumPy scalar must not lead)
        AddcmulBackward0,
        False,
    )


@tensor_method("addcdiv", torch=("addcdiv",))
def addcdiv(self, tensor1, tensor2, *, value=1) -> Tensor:
    """self + value * tensor1 / tensor2."""
    return _three(
        "addcdiv",
        self,
        tensor1,
        tensor2,
        value,
        lambda a, b, c, v: a + b * v / c,
        AddcdivBackward0,
        True,
    )


# -- the in-place variants (add_, sub_, mul_, div_, pow_, floor_divide_, remainder_, neg_) ------
def _inplace_binary(opname: str, ufunc: str):
    func = globals()[opname]

    def method(self, other, *, alpha=1):
        if alpha == 1:
            done = fast_binary(self, other, ufunc, opname + "_")
            if done is not None:
                return done
        kw = {"alpha": alpha} if opname in ("add", "sub") else {}
        return apply_inplace(self, func, (other,), kw, opname + "_")

    method.__name__ = opname + "_"
    method.__doc__ = f"In-place {opname}."
    return method


for _names, _op, _ufunc in (
    (("add_", "__iadd__"), "add", "add"),
    (("sub_", "__isub__", "subtract_"), "sub", "subtract"),
    (("mul_", "__imul__", "multiply_"), "mul", "multiply"),
    (("div_", "__itruediv__", "divide_"), "div", "true_divide"),
):
    _method = _inplace_binary(_op, _ufunc)
    for _n in _names:
        install(_n, _method)


@tensor_method("pow_", "__ipow__")
def pow_(self, exponent):
    """In-place power."""
    return apply_inplace(self, pow, (exponent,), {}, "pow_")


@tensor_method("__ifloordiv__", "floor_divide_")
def floor_divide_(self, other):
    """In-place floor division."""
    return apply_inplace(self, floor_divide, (other,), {}, "floor_divide_")


@tensor_method("__imod__", "remainder_")
def remainder_(self, other):
    """In-place remainder."""
    return apply_inplace(self, remainder, (other,), {}, "remainder_")


@tensor_method("neg_", "negative_")
def neg_(self):
    """In-place negation."""
    return apply_inplace(self, neg, (), {}, "neg_")
