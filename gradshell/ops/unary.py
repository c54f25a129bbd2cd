"""Elementwise functions of one tensor (exp, log, sqrt, abs, trig, tanh, sigmoid, relu,
...) and their in-place variants. Each op: its forward (an array function), its backward
node with its explanation formula, its names."""

from __future__ import annotations

import math

import numpy as np

from gradshell.core import dtypes, kernels
from gradshell.ops.base import (
    BOOL,
    FLOAT,
    Node,
    Tensor,
    array_module,
    as_array,
    install,
    needs_grad,
    opmath,
    record,
    tensor_method,
    wrap,
)
from gradshell.ops.explanation import (
    BACKWARD_OF_BACKWARD,
    Ctx,
    Formula,
    Local,
    logistic,
    num,
    unary_formula,
    wrap_sym,
    zero_formula,
)
from gradshell.ops.fused import FusedBackward, fused
from gradshell.ops.inplace import apply_inplace
from gradshell.ops.registry import op
from gradshell.ops.scalar import add_scalar, mul_scalar
from gradshell.ops.selection import where

# mul.Scalar / add.Scalar inside a backward formula (MulBackward1, AddBackward1)
_mul_scalar = mul_scalar
_add_scalar = add_scalar


def unary(x: Tensor, fname: str, node_cls=None, save: str | None = None, floating=True):
    """Apply the array function `fname` to `x`, recording `node_cls` when grad is needed.

    `save` is 'self' (the input) or 'result' (the output) for backward; `floating` promotes
    integer inputs to the default float dtype, as PyTorch does for exp, log, sin, ...
    """
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{fname}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
        )
    data = x._data
    dt = x._dtype
    if floating and dt.category != FLOAT:
        dt = dtypes.get_default_dtype()
        data = data.astype(dt.np)
    data = opmath(data)
    xp = array_module(data)
    kernel = kernels.lookup(fname, data)  # PyTorch's exact CPU kernel, when there is one
    r = as_array(kernel(data) if kernel else getattr(xp, fname)(data))
    if r.dtype != dt.np:
        r = r.astype(dt.np)
    res = wrap(r, dt)
    if node_cls is not None and needs_grad(x):
        node = node_cls()
        if save == "self":
            node.save("self", x)
        elif save == "result":
            node.save("result", res, is_output=True)
        record(node, (x,), res)
    return res


def _exact_backward(name: str, g: Tensor, v: Tensor, formula, *args) -> Tensor:
    """PyTorch's backward kernel `name` on the arrays of g and v (same rounding as its
    CPU build), or `formula()` where there is none (other devices and dtypes)."""
    kernel = kernels.lookup_pair(name, g._data, v._data)
    if kernel is None:
        return formula()
    return wrap(kernel(g._data, v._data, *args), v._dtype)


def _inplace(name: str):
    def method(self, *args, **kwargs):
        return apply_inplace(self, globals()[name], args, kwargs, name + "_")

    method.__name__ = name + "_"
    method.__doc__ = f"In-place {name}."
    return method


class ExpBackward0(Node):
    """d exp(x)/dx = exp(x)."""

    legacy_name_02 = "ExpBackward"

    def backward(self, g):
        return (g * self.saved("result"),)

    explain = unary_formula("exp", "exp({x})", lambda c: c.saved("result"))


@tensor_method("exp", torch=("exp",))
def exp(self):
    """e ** self."""
    return unary(self, "exp", ExpBackward0, "result")


class Expm1Backward0(Node):
    """d (exp(x)-1)/dx = exp(x) = result + 1."""

    def backward(self, g):
        return (g * _add_scalar(self.saved("result"), 1),)

    explain = unary_formula("expm1", "exp({x})", lambda c: c.saved("result") + 1)


@tensor_method("expm1", torch=("expm1",))
def expm1(self):
    """exp(self) - 1, accurate near 0."""
    return unary(self, "expm1", Expm1Backward0, "result")


class LogBackward0(Node):
    """d log(x)/dx = 1/x."""

    legacy_name_02 = "LogBackward"

    def backward(self, g):
        return (g / self.saved("self"),)

    explain = unary_formula("log", "1/{x}", lambda c: 1 / c.saved("self"))


@tensor_method("log", torch=("log",))
def log(self):
    """Natural logarithm."""
    return unary(self, "log", LogBackward0, "self")


class Log2Backward0(Node):
    """d log2(x)/dx = 1/(x ln 2)."""

    def backward(self, g):
        return (g / _mul_scalar(self.saved("self"), 0.6931471805599453),)

    explain = unary_formula("log2", "1/({x}·ln 2)", lambda c: 1 / (c.saved("self") * math.log(2)))


@tensor_method("log2", torch=("log2",))
def log2(self):
    """Base-2 logarithm."""
    return unary(self, "log2", Log2Backward0, "self")


class Log10Backward0(Node):
    """d log10(x)/dx = 1/(x ln 10)."""

    def backward(self, g):
        return (g / _mul_scalar(self.saved("self"), 2.302585092994046),)

    explain = unary_formula(
        "log10", "1/({x}·ln 10)", lambda c: 1 / (c.saved("self") * math.log(10))
    )


@tensor_method("log10", torch=("log10",))
def log10(self):
    """Base-10 logarithm."""
    return unary(self, "log10", Log10Backward0, "self")


class Log1PBackward0(Node):
    """d log(1+x)/dx = 1/(1+x)."""

    def backward(self, g):
        return (g / _add_scalar(self.saved("self"), 1),)

    explain = unary_formula("log1p", "1/(1 + {x})", lambda c: 1 / (c.saved("self") + 1))


@tensor_method("log1p", torch=("log1p",))
def log1p(self):
    """log(1 + self), accurate near 0."""
    return unary(self, "log1p", Log1PBackward0, "self")


class SqrtBackward0(Node):
    """d sqrt(x)/dx = 1 / (2 sqrt(x))."""

    legacy_name_02 = "SqrtBackward"

    def backward(self, g):
        return (g / _mul_scalar(self.saved("result"), 2),)

    explain = unary_formula("sqrt", "1/(2·sqrt({x}))", lambda c: 1 / (2 * c.saved("result")))


@tensor_method("sqrt", torch=("sqrt",))
def sqrt(self):
    """Square root."""
    return unary(self, "sqrt", SqrtBackward0, "result")


class RsqrtBackward0(Node):
    """d x^(-1/2)/dx = -1/2 x^(-3/2) = -r³/2."""

    def backward(self, g):
        r = self.saved("result")
        # PyTorch: -0.5 * grad * result.pow(3), its number product being mul.Scalar
        return (_mul_scalar(g, -0.5) * r.pow(3),)

    explain = unary_formula("rsqrt", "−½·{x}^(−3/2)", lambda c: -0.5 * c.saved("result") ** 3)


@tensor_method("rsqrt", torch=("rsqrt",))
def rsqrt(self):
    """1 / sqrt(self)."""
    if self._dtype.np == np.float16:  # 1/sqrt in float32, rounded once (PyTorch's opmath)
        res = unary(self.float(), "sqrt", None)
        res = wrap(as_array(np.reciprocal(res._data).astype(np.float16)), self._dtype)
    else:
        res = unary(self, "sqrt", None)
        res._data = as_array(array_module(res._data).reciprocal(res._data))
    if needs_grad(self):
        node = RsqrtBackward0()
        node.save("result", res, is_output=True)
        record(node, (self,), res)
    return res


class ReciprocalBackward0(Node):
    """d (1/x)/dx = -1/x²."""

    legacy_name_02 = "ReciprocalBackward"

    def backward(self, g):
        r = self.saved("result")
        return (-g * (r * r),)  # PyTorch: -grad * (result * result)

    explain = unary_formula("1/", "−1/{x}²", lambda c: -(c.saved("result") ** 2))


@tensor_method("reciprocal", torch=("reciprocal",))
def reciprocal(self):
    """1 / self."""
    data = self._data
    dt = self._dtype
    if dt.category != FLOAT:
        dt = dtypes.get_default_dtype()
        data = data.astype(dt.np)
    res = wrap(as_array(array_module(data).reciprocal(data)), dt)
    if needs_grad(self):
        node = ReciprocalBackward0()
        node.save("result", res, is_output=True)
        record(node, (self,), res)
    return res


class AbsBackward0(Node):
    """d |x|/dx = sign(x)."""

    legacy_name_02 = "AbsBackward"

    def backward(self, g):
        # PyTorch: grad * self.sgn(), so a second derivative passes SgnBackward0
        return (g * sgn(self.saved("self")),)

    explain = unary_formula("abs", "sign({x})", lambda c: np.sign(c.saved("self")))


@tensor_method("abs", "absolute", "__abs__", torch=("abs", "absolute"))
def abs(self):  # noqa: A001 - PyTorch's name
    """Absolute value."""
    if self._dtype.category == BOOL:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return unary(self, "abs", AbsBackward0, "self", floating=False)


def zeros_like_grad(g: Tensor) -> Tensor:
    """zeros_like(grad): a gradient of zeros that is no function of grad, so even with
    create_graph=True it has no grad_fn (PyTorch's formula for flat functions)."""
    return wrap(as_array(array_module(g._data).zeros_like(g._data)), g._dtype)


class SignBackward0(Node):
    """sign is flat almost everywhere: zero gradient."""

    def backward(self, g):
        return (zeros_like_grad(g),)  # PyTorch: zeros_like(grad)

    explain = zero_formula("sign")


@tensor_method("sign", torch=("sign",))
def sign(self):
    """-1, 0 or 1 by the sign of each element."""
    return unary(self, "sign", SignBackward0, None, floating=False)


class SgnBackward0(Node):
    """sgn (sign, extended to complex numbers as z/|z|) is flat on real numbers: zero
    gradient, with no graph behind it."""

    def backward(self, g):
        # PyTorch's sgn_backward(self, grad, result) reads its saved tensors (so a second
        # backward raises once they are freed); for a real input it is a tensor of zeros,
        # no function of grad
        self.saved("self")
        self.saved("result")
        return (zeros_like_grad(g),)

    explain = zero_formula("sgn")


@tensor_method("sgn", torch=("sgn",))
def sgn(self):
    """sign of each element (for real tensors the same values as sign, its own node)."""
    if self._dtype.category == BOOL:  # sgn of a bool is itself (sign refuses bool)
        return wrap(as_array(self._data.copy()), self._dtype)
    res = unary(self, "sign", None, None, floating=False)
    if needs_grad(self):
        node = SgnBackward0()
        node.save("self", self)
        node.save("result", res, is_output=True)
        record(node, (self,), res)
    return res


class SinBackward0(Node):
    """d sin(x)/dx = cos(x)."""

    legacy_name_02 = "SinBackward"

    def backward(self, g):
        return (g * cos(self.saved("self")),)

    explain = unary_formula("sin", "cos({x})", lambda c: np.cos(c.saved("self")))


@tensor_method("sin", torch=("sin",))
def sin(self):
    """Sine."""
    return unary(self, "sin", SinBackward0, "self")


class CosBackward0(Node):
    """d cos(x)/dx = -sin(x)."""

    legacy_name_02 = "CosBackward"

    def backward(self, g):
        return (g * -sin(self.saved("self")),)

    explain = unary_formula("cos", "−sin({x})", lambda c: -np.sin(c.saved("self")))


@tensor_method("cos", torch=("cos",))
def cos(self):
    """Cosine."""
    return unary(self, "cos", CosBackward0, "self")


class TanBackward0(Node):
    """d tan(x)/dx = 1 + tan²(x)."""

    def backward(self, g):
        # PyTorch: grad * (1 + result.pow(2))
        return (g * _add_scalar(self.saved("result").pow(2), 1),)

    explain = unary_formula("tan", "1 + tan²({x})", lambda c: 1 + c.saved("result") ** 2)


@tensor_method("tan", torch=("tan",))
def tan(self):
    """Tangent."""
    return unary(self, "tan", TanBackward0, "result")


class TanhBackward0(Node):
    """d tanh(x)/dx = 1 - tanh²(x)."""

    legacy_name_02 = "TanhBackward"

    def backward(self, g):
        return (tanh_backward(g, self.saved("result")),)

    explain = unary_formula("tanh", "1 − tanh²({x})", lambda c: 1 - c.saved("result") ** 2)


class TanhBackwardBackward0(FusedBackward):
    """tanh_backward(g, y) = g (1 - y²), differentiated: by g the same op again, by y
    -2 g y."""

    inputs = ("grad_output", "output")

    def grads(self, gg, wanted, g, y):
        return (
            tanh_backward(gg, y) if wanted[0] else None,
            # PyTorch: grad * (-2 * output * grad_output), -2 * output being mul.Scalar
            gg * (_mul_scalar(y, -2) * g) if wanted[1] else None,
        )

    no_explanation = BACKWARD_OF_BACKWARD


def tanh_backward(g: Tensor, y: Tensor) -> Tensor:
    """The gradient of tanh given its result y: g (1 - y²), one node if differentiated."""
    return fused(
        TanhBackwardBackward0,
        (g, y),
        lambda g, y: _exact_backward("tanh_backward", g, y, lambda: g * (1 - y * y)),
    )


@tensor_method("tanh", torch=("tanh",))
def tanh(self):
    """Hyperbolic tangent."""
    return unary(self, "tanh", TanhBackward0, "result")


class SigmoidBackward0(Node):
    """d σ(x)/dx = σ(x)(1 - σ(x))."""

    legacy_name_02 = "SigmoidBackward"

    def backward(self, g):
        return (sigmoid_backward(g, self.saved("result")),)

    explain = unary_formula(
        "sigmoid",
        "σ({x})·(1 − σ({x}))",
        lambda c: c.saved("result") * (1 - c.saved("result")),
    )


class SigmoidBackwardBackward0(FusedBackward):
    """sigmoid_backward(g, y) = g y (1 - y), differentiated: by g the same op again, by y
    g (1 - 2y)."""

    inputs = ("grad_output", "output")

    def grads(self, gg, wanted, g, y):
        return (
            sigmoid_backward(gg, y) if wanted[0] else None,
            # PyTorch: grad * grad_output * (-2 * output + 1), with mul.Scalar and
            # add.Scalar for the numbers
            gg * g * _add_scalar(_mul_scalar(y, -2), 1) if wanted[1] else None,
        )

    no_explanation = BACKWARD_OF_BACKWARD


def sigmoid_backward(g: Tensor, y: Tensor) -> Tensor:
    """The gradient of sigmoid given its result y: g y (1 - y), one node if differentiated."""
    return fused(
        SigmoidBackwardBackward0,
        (g, y),
        lambda g, y: _exact_backward("sigmoid_backward", g, y, lambda: g * (1 - y) * y),
        opmath=False,  # PyTorch's float16 sigmoid_backward rounds after each op
    )


@tensor_method("sigmoid", torch=("sigmoid",))
def sigmoid(self):
    """The logistic function 1 / (1 + e^-x)."""
    x = self._data
    dt = self._dtype
    if dt.category != FLOAT:
        dt = dtypes.get_default_dtype()
        x = x.astype(dt.np)
    x = opmath(x)
    xp = array_module(x)
    kernel = kernels.lookup("sigmoid", x)
    if kernel is not None:
        r = kernel(x).astype(dt.np, copy=False)
    else:
        # 1/(1+e^-x) overflows harmlessly to 0 for very negative x; 1/inf = 0.
        r = as_array(xp.reciprocal(xp.exp(xp.negative(x)) + 1).astype(dt.np, copy=False))
    res = wrap(r, dt)
    if needs_grad(self):
        node = SigmoidBackward0()
        node.save("result", res, is_output=True)
        record(node, (self,), res)
    return res


class ReluBackward0(Node):
    """d relu(x)/dx = 1 where x > 0, else 0."""

    legacy_name_02 = "ThresholdBackward"
    legacy_python = False

    def backward(self, g):
        return (threshold_backward(g, self.saved("result"), 0),)

    explain = unary_formula(
        "relu", "1 where {x} > 0, else 0", lambda c: (c.saved("result") > 0) * 1.0
    )


class ThresholdBackwardBackward0(FusedBackward):
    """threshold_backward(g, x, t) = g where x > t, else 0: linear in g, flat in x."""

    inputs = ("grad_output", "self")

    def grads(self, gg, wanted, g, x):
        return (
            threshold_backward(gg, x, self.threshold) if wanted[0] else None,
            zeros_like_grad(gg) if wanted[1] else None,  # PyTorch: zeros_like(grad)
        )

    no_explanation = BACKWARD_OF_BACKWARD


def threshold_backward(g: Tensor, x: Tensor, threshold) -> Tensor:
    """g where x > threshold, else 0 (relu's gradient), one node if differentiated."""
    return fused(
        ThresholdBackwardBackward0,
        (g, x),
        lambda g, x: where((x > threshold).detach(), g, 0.0),  # +0.0 below, as PyTorch
        threshold=threshold,
    )


@tensor_method("relu", torch=("relu",))
def relu(self):
    """max(x, 0)."""
    if self._dtype.category == BOOL:
        raise RuntimeError("Boolean inputs not supported for relu")
    xp = array_module(self._data)
    # 0 first: NumPy keeps its second operand on ties, so relu(-0.0) is -0.0 as in PyTorch
    res = wrap(as_array(xp.maximum(0, self._data).astype(self._dtype.np, copy=False)), self._dtype)
    if needs_grad(self):
        node = ReluBackward0()
        node.save("result", res, is_output=True)
        record(node, (self,), res)
    return res


class _ZeroGrad(Node):
    def backward(self, g):
        return (zeros_like_grad(g),)  # PyTorch: zeros_like(grad), no graph behind it

    no_explanation = "a base class: each rounding node names its own formula"


class FloorBackward0(_ZeroGrad):
    """floor is flat almost everywhere: zero gradient."""

    explain = zero_formula("floor")


class CeilBackward0(_ZeroGrad):
    """ceil is flat almost everywhere: zero gradient."""

    explain = zero_formula("ceil")


class RoundBackward0(_ZeroGrad):
    """round is flat almost everywhere: zero gradient."""

    explain = zero_formula("round")


class TruncBackward0(_ZeroGrad):
    """trunc is flat almost everywhere: zero gradient."""

    explain = zero_formula("trunc")


@tensor_method("floor", torch=("floor",))
def floor(self):
    """Round down to an integer value (same dtype)."""
    if self._dtype.category != FLOAT:
        return self.clone()
    return unary(self, "floor", FloorBackward0, None, floating=False)


@tensor_method("ceil", torch=("ceil",))
def ceil(self):
    """Round up to an integer value (same dtype)."""
    if self._dtype.category != FLOAT:
        return self.clone()
    return unary(self, "ceil", CeilBackward0, None, floating=False)


@tensor_method("trunc", "fix", torch=("trunc", "fix"))
def trunc(self):
    """Round towards zero (same dtype)."""
    if self._dtype.category != FLOAT:
        return self.clone()
    return unary(self, "trunc", TruncBackward0, None, floating=False)


@tensor_method("round", torch=("round",))
def round(self, *, decimals: int = 0):  # noqa: A001 - PyTorch's name
    """Round half to even (as PyTorch and NumPy do)."""
    if self._dtype.category != FLOAT:
        return self.clone()
    if decimals:
        xp = array_module(self._data)
        res = wrap(as_array(xp.round(self._data, decimals)), self._dtype)
        if needs_grad(self):
            record(RoundBackward1(), (self,), res)
        return res
    return unary(self, "rint", RoundBackward0, None, floating=False)


class RoundBackward1(_ZeroGrad):
    """round(decimals=n) is flat almost everywhere: zero gradient."""

    explain = zero_formula("round")


for _name in (
    "exp",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sqrt",
    "rsqrt",
    "reciprocal",
    "abs",
    "sign",
    "sgn",
    "sin",
    "cos",
    "tan",
    "tanh",
    "sigmoid",
    "relu",
    "floor",
    "ceil",
    "trunc",
    "round",
):
    install(_name + "_", _inplace(_name))


# -- more elementwise functions (erf, hyperbolic and inverse trig, softplus) --------------------
def _erf_array(xp, data):
    """erf of an array: NumPy has no erf, so the host path maps math.erf (exact in double
    precision) over the elements; CuPy ships one in cupyx.scipy.special."""
    if xp.__name__ == "numpy":
        import math

        f = xp.frompyfunc(math.erf, 1, 1)
        return xp.asarray(f(data.astype(xp.float64)), dtype=xp.float64).astype(data.dtype)
    try:
        from cupyx.scipy.special import erf as cupy_erf
    except ImportError:  # a device backend without cupyx: compute on the host, explicitly
        host = xp.asnumpy(data)
        return xp.asarray(_erf_array(__import__("numpy"), host))
    return cupy_erf(data)  # pragma: no cover - needs a GPU


class ErfBackward0(Node):
    """d erf(x)/dx = 2/sqrt(pi) * exp(-x²)."""

    def backward(self, g):
        x = self.saved("self")
        # PyTorch: 2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad
        return (_mul_scalar(exp(-x.pow(2)), 1.1283791670955126) * g,)

    explain = unary_formula(
        "erf",
        "2/√π·exp(−{x}²)",
        lambda c: 2 / math.sqrt(math.pi) * np.exp(-(c.saved("self") ** 2)),
    )


@tensor_method("erf", torch=("erf",))
def erf(self) -> Tensor:
    """The error function."""
    if not isinstance(self, Tensor):
        raise TypeError(
            f"erf(): argument 'input' (position 1) must be Tensor, not {type(self).__name__}"
        )
    data = self._data
    dt = self._dtype
    if dt.category != FLOAT:
        dt = dtypes.get_default_dtype()
        data = data.astype(dt.np)
    res = wrap(as_array(_erf_array(array_module(data), data)), dt)
    if needs_grad(self):
        node = ErfBackward0()
        node.save("self", self)
        record(node, (self,), res)
    return res


class SinhBackward0(Node):
    """d sinh(x)/dx = cosh(x)."""

    legacy_name_02 = "SinhBackward"

    def backward(self, g):
        return (g * cosh(self.saved("self")),)

    explain = unary_formula("sinh", "cosh({x})", lambda c: np.cosh(c.saved("self")))


@tensor_method("sinh", torch=("sinh",))
def sinh(self) -> Tensor:
    """Hyperbolic sine."""
    return unary(self, "sinh", SinhBackward0, "self")


class CoshBackward0(Node):
    """d cosh(x)/dx = sinh(x)."""

    legacy_name_02 = "CoshBackward"

    def backward(self, g):
        return (g * sinh(self.saved("self")),)

    explain = unary_formula("cosh", "sinh({x})", lambda c: np.sinh(c.saved("self")))


@tensor_method("cosh", torch=("cosh",))
def cosh(self) -> Tensor:
    """Hyperbolic cosine."""
    return unary(self, "cosh", CoshBackward0, "self")


class AsinBackward0(Node):
    """d asin(x)/dx = 1/sqrt(1 - x²)."""

    legacy_name_02 = "AsinBackward"

    def backward(self, g):
        x = self.saved("self")
        # PyTorch: grad * (-self * self + 1).rsqrt()
        return (g * rsqrt(_add_scalar(-x * x, 1)),)

    explain = unary_formula(
        "asin", "1/√(1 − {x}²)", lambda c: 1 / np.sqrt(1 - c.saved("self") ** 2)
    )


@tensor_method("asin", "arcsin", torch=("asin", "arcsin"))
def asin(self) -> Tensor:
    """Inverse sine (NaN outside [-1, 1])."""
    return unary(self, "arcsin", AsinBackward0, "self")


class AcosBackward0(Node):
    """d acos(x)/dx = -1/sqrt(1 - x²)."""

    legacy_name_02 = "AcosBackward"

    def backward(self, g):
        x = self.saved("self")
        # PyTorch: grad * -((-self * self + 1).rsqrt())
        return (g * -rsqrt(_add_scalar(-x * x, 1)),)

    explain = unary_formula(
        "acos", "−1/√(1 − {x}²)", lambda c: -1 / np.sqrt(1 - c.saved("self") ** 2)
    )


@tensor_method("acos", "arccos", torch=("acos", "arccos"))
def acos(self) -> Tensor:
    """Inverse cosine (NaN outside [-1, 1])."""
    return unary(self, "arccos", AcosBackward0, "self")


class AtanBackward0(Node):
    """d atan(x)/dx = 1/(1 + x²)."""

    legacy_name_02 = "AtanBackward"

    def backward(self, g):
        x = self.saved("self")
        return (g / _add_scalar(x * x, 1),)

    explain = unary_formula("atan", "1/(1 + {x}²)", lambda c: 1 / (1 + c.saved("self") ** 2))


@tensor_method("atan", "arctan", torch=("atan", "arctan"))
def atan(self) -> Tensor:
    """Inverse tangent."""
    return unary(self, "arctan", AtanBackward0, "self")


class AsinhBackward0(Node):
    """d asinh(x)/dx = 1/√(x² + 1)."""

    def backward(self, g):
        # PyTorch's formula: grad * (self.pow(2) + 1).rsqrt()
        x = self.saved("self")
        return (g * _add_scalar(x.pow(2), 1).rsqrt(),)

    explain = unary_formula(
        "asinh", "1/√({x}² + 1)", lambda c: 1 / np.sqrt(c.saved("self") ** 2 + 1)
    )


class AsinhBackward1(Node):
    """asinh_ in place: PyTorch has no derivative for it, so backward through it fails."""

    no_explanation = "PyTorch implements no derivative for asinh_ (in place)"

    def backward(self, g):
        raise NotImplementedError(
            "the derivative for 'inplace version of asinh' is not implemented."
        )


def asinh_(self):
    """asinh_: the in-place form records its own node, AsinhBackward1."""
    return apply_inplace(self, lambda x: unary(x, "arcsinh", AsinhBackward1), (), {}, "asinh_")


@op(
    "asinh",
    "arcsinh",
    torch=("asinh", "arcsinh"),
    inplace=("asinh_", "arcsinh_"),
    inplace_fn=asinh_,
)
def asinh(self) -> Tensor:
    """Inverse hyperbolic sine."""
    return unary(self, "arcsinh", AsinhBackward0, "self")


class SoftplusBackward0(Node):
    """d softplus(x)/dx = sigmoid(beta*x), or 1 above the threshold where softplus is x."""

    def backward(self, g):
        return (softplus_backward(g, self.saved("self"), self.beta, self.threshold),)

    def explain(self, c: Ctx) -> Formula:
        x, beta, threshold = c.saved("self"), c.attr("beta"), c.attr("threshold")
        s = c.sym(0)
        arg = s if beta == 1 else f"{num(beta)}·{wrap_sym(s)}"
        value = np.where(beta * x > threshold, 1.0, logistic(beta * x))
        return Formula(f"softplus({s})", [Local(f"σ({arg})", value)])


class SoftplusBackwardBackward0(FusedBackward):
    """softplus_backward differentiated: by the gradient the same op again, by x
    g · beta σ'(beta x) below the threshold."""

    inputs = ("grad_output", "self")

    def grads(self, gg, wanted, g, x):
        beta, threshold = self.beta, self.threshold
        gx = None
        if wanted[1]:
            # PyTorch's softplus_double_backward(grad * grad_output, self, beta, threshold):
            # sigmoid_backward(grad, (x * beta).sigmoid()) * (x * beta < threshold) * beta,
            # the numbers as mul.Scalar
            bx = _mul_scalar(x, beta)
            mask = (bx < threshold).detach().to(gg.dtype)
            gx = _mul_scalar(sigmoid_backward(gg * g, sigmoid(bx)) * mask, beta)
        return (softplus_backward(gg, x, beta, threshold) if wanted[0] else None), gx

    no_explanation = BACKWARD_OF_BACKWARD


def softplus_backward(g: Tensor, x: Tensor, beta, threshold) -> Tensor:
    """softplus's gradient: sigmoid(beta x) g, or g above the threshold; one node if
    differentiated."""

    def formula():
        bx = x * beta
        z = exp(bx)
        return where((bx > threshold).detach(), g, g * z / (z + 1))

    def compute(g, x):
        return _exact_backward("softplus_backward", g, x, formula, beta, threshold)

    return fused(SoftplusBackwardBackward0, (g, x), compute, beta=beta, threshold=threshold)


def softplus(input, beta: float = 1.0, threshold: float = 20.0) -> Tensor:  # noqa: A002 - PyTorch's name
    """log(1 + exp(beta*x)) / beta, and x itself where beta*x > threshold (for stability)."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"softplus(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    if input._dtype.category != FLOAT:
        raise NotImplementedError(
            f"\"softplus_cpu\" not implemented for '{input._dtype.scalar_name}'"
        )
    x = opmath(input._data)
    xp = array_module(x)
    kernel = kernels.lookup("softplus", x)
    if kernel is not None:
        r = kernel(x, beta, threshold).astype(input._dtype.np, copy=False)
    else:
        bx = x * x.dtype.type(beta)
        soft = xp.log1p(xp.exp(bx)) / x.dtype.type(beta)
        r = as_array(xp.where(bx > threshold, x, soft).astype(input._dtype.np, copy=False))
    res = wrap(r, input._dtype)
    if needs_grad(input):
        node = SoftplusBackward0()
        node.save("self", input)
        node.beta = beta  # numbers PyTorch keeps as Scalars: not freed by backward
        node.threshold = threshold
        record(node, (input,), res)
    return res


for _name in ("erf", "sinh", "cosh", "asin", "acos", "atan"):
    install(_name + "_", _inplace(_name))


@tensor_method("square", torch=("square",))
def square(self) -> Tensor:
    """self ** 2 (PyTorch computes it as pow(self, 2): node PowBackward0)."""
    if not isinstance(self, Tensor):
        raise TypeError(
            f"square(): argument 'input' (position 1) must be Tensor, not {type(self).__name__}"
        )
    return self.pow(2)


install("square_", _inplace("square"))
