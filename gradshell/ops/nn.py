"""The torch.nn.functional ops: activations (leaky_relu, gelu, elu, silu, softmax,
log_softmax), dropout, linear, the losses (mse, l1, smooth_l1, binary cross entropy with
and without logits, nll, cross entropy with class indices or probabilities) and one_hot.

Like every op module: a forward computed with the array module of the inputs, a backward
node named as PyTorch names it and written with tensor operations (so double backward
works), saving what PyTorch saves. Composite functions (linear, l1_loss, cross_entropy)
are built from the ops PyTorch builds them from, so the graph shows the same nodes.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from gradshell.core import dtypes, grad_mode, kernels
from gradshell.core.device import to_numpy
from gradshell.ops import arithmetic, linalg, random_source, reduction, scalar, summation, unary
from gradshell.ops.base import (
    BOOL,
    FLOAT,
    Node,
    Tensor,
    array_module,
    as_array,
    broadcast_fail,
    install,
    needs_grad,
    opmath,
    record,
    tensor_method,
    wrap,
    wrap_dim,
)
from gradshell.ops.explanation import (
    BACKWARD_OF_BACKWARD,
    Ctx,
    Formula,
    Local,
    Unavailable,
    logistic,
    mean_over,
    needs,
    num,
    wrap_sym,
)
from gradshell.ops.fused import FusedBackward, fused
from gradshell.ops.inplace import apply_inplace, check_inplace, rebase
from gradshell.ops.unary import erf, exp, sigmoid, softplus, tanh, where
from gradshell.ops.unary import relu as _relu

__all__ = [
    "relu",
    "relu_",
    "leaky_relu",
    "gelu",
    "elu",
    "silu",
    "sigmoid",
    "tanh",
    "softplus",
    "softmax",
    "log_softmax",
    "dropout",
    "linear",
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "nll_loss",
    "cross_entropy",
    "one_hot",
]


def _input(fname: str, x) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{fname}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
        )
    return x


def _floating(kernel: str, x: Tensor) -> None:
    if x._dtype.category != FLOAT:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{x._dtype.scalar_name}'")


def _const(data, dtype) -> Tensor:
    """A constant tensor (outside the graph) of `dtype`."""
    return wrap(as_array(data.astype(dtype.np, copy=False)), dtype)


def _inplace_result(x: Tensor, res: Tensor) -> Tensor:
    check_inplace(x)
    return rebase(x, res)


# -- activations -------------------------------------------------------------------------------
def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002 - PyTorch's name
    """max(x, 0) (in place with inplace=True)."""
    return _input("relu", input).relu_() if inplace else _relu(input)


def relu_(input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
    """relu in place."""
    return input.relu_()


class LeakyReluBackward0(Node):
    """d leaky_relu: 1 where x > 0, else negative_slope."""

    def backward(self, g):
        return (leaky_relu_backward(g, self.saved("self"), self.negative_slope),)

    def explain(self, c: Ctx) -> Formula:
        return _leaky_formula(c, c.saved("self"))


class LeakyReluBackward1(Node):
    """In-place leaky_relu_ (saves its result): 1 where the result > 0, else the slope."""

    def backward(self, g):
        return (leaky_relu_backward(g, self.saved("result"), self.negative_slope),)

    def explain(self, c: Ctx) -> Formula:
        return _leaky_formula(c, c.saved("result"))


class LeakyReluBackwardBackward0(FusedBackward):
    """leaky_relu_backward is linear in the gradient and flat in x."""

    inputs = ("grad_output", "self")

    def grads(self, gg, wanted, g, x):
        return (
            leaky_relu_backward(gg, x, self.negative_slope) if wanted[0] else None,
            unary.zeros_like_grad(gg) if wanted[1] else None,  # PyTorch: zeros_like(grad)
        )

    no_explanation = BACKWARD_OF_BACKWARD


def leaky_relu_backward(g: Tensor, x: Tensor, negative_slope) -> Tensor:
    """g where x > 0, else negative_slope g; one node if differentiated."""
    return fused(
        LeakyReluBackwardBackward0,
        (g, x),
        lambda g, x: where((x > 0).detach(), g, g * negative_slope),
        negative_slope=negative_slope,
    )


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:  # noqa: A002
    """x where x > 0, else negative_slope * x."""
    x = _input("leaky_relu", input)
    _floating("leaky_relu_cpu", x)
    if inplace:
        check_inplace(x)
    xp = array_module(x._data)
    d = opmath(x._data)
    r = xp.where(d > 0, d, d * d.dtype.type(negative_slope)).astype(x._dtype.np, copy=False)
    res = wrap(as_array(r), x._dtype)
    if needs_grad(x):
        node = LeakyReluBackward1() if inplace else LeakyReluBackward0()
        node.negative_slope = negative_slope
        if inplace:
            node.save("result", res, is_output=True)
        else:
            node.save("self", x)
        record(node, (x,), res)
    return _inplace_result(x, res) if inplace else res


_SQRT1_2 = 0.7071067811865476
_SQRT_2_PI = 0.7978845608028654  # sqrt(2/pi)
_INV_SQRT_2PI = 0.3989422804014327  # 1/sqrt(2*pi)


class GeluBackward0(Node):
    """d gelu: Φ(x) + x φ(x) (exact), or the derivative of the tanh approximation."""

    def backward(self, g):
        return (gelu_backward(g, self.saved("self"), self.approximate),)

    def explain(self, c: Ctx) -> Formula:
        if c.attr("approximate") != "none":
            raise Unavailable("shown for the exact gelu only")
        x = c.saved("self")
        cdf = 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2))) if x.size else x
        pdf = np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
        s = c.sym(0)
        return Formula(f"gelu({s})", [Local(f"Φ({s}) + {wrap_sym(s)}·φ({s})", cdf + x * pdf)])


class GeluBackwardBackward0(FusedBackward):
    """gelu_backward differentiated: by the gradient the same op again, by x
    g · gelu''(x)."""

    inputs = ("grad_output", "self")

    def grads(self, gg, wanted, g, x):
        gx = None
        if wanted[1]:
            gx = gg * g * _gelu_second_derivative(x, self.approximate)
        return (gelu_backward(gg, x, self.approximate) if wanted[0] else None), gx

    no_explanation = BACKWARD_OF_BACKWARD


def _gelu_second_derivative(x: Tensor, approximate: str) -> Tensor:
    """gelu''(x) written as PyTorch's gelu_double_backward writes it, op for op (numbers
    as mul.Scalar / add.Scalar, `1 - t` and `1 / t` as filled tensors), so a third
    derivative meets the same nodes."""
    if approximate == "tanh":
        beta = _M_SQRT2 * _M_2_SQRTPI * 0.5
        kappa = 0.044715
        inner = _mul_scalar(x + _mul_scalar(x.pow(3), kappa), beta)
        tanh_inner = tanh(inner)
        sech_inner = scalar.number_over(1, inner.cosh())
        f = _mul_scalar(x, 0.5)
        g = scalar.number_minus(1, tanh_inner * tanh_inner)
        h = _mul_scalar(_add_scalar(_mul_scalar(x, 3 * kappa) * x, 1), beta)
        f_prime_gh = _mul_scalar(g, 0.5) * h
        g_prime = _mul_scalar(sech_inner, 2) * (-sech_inner * tanh_inner) * h
        g_prime_fh = f * h * g_prime
        h_prime = _mul_scalar(_mul_scalar(x, 6 * kappa), beta)
        h_prime_fg = f * g * h_prime
        return _mul_scalar(f_prime_gh, 2) + g_prime_fh + h_prime_fg
    beta = _M_2_SQRTPI * _M_SQRT1_2 * 0.5  # 1/√(2π), as C's constants multiply out
    x_sq = x * x
    pdf = _mul_scalar(exp(_mul_scalar(x_sq, -0.5)), beta)
    return _mul_scalar(pdf, 2) - x_sq * pdf


#: C's M_2_SQRTPI, M_SQRT2 and M_SQRT1_2, the constants PyTorch's formulas are written with
_M_2_SQRTPI = 1.1283791670955126
_M_SQRT2 = 1.4142135623730951
_M_SQRT1_2 = 0.7071067811865476


def gelu_backward(g: Tensor, x: Tensor, approximate: str) -> Tensor:
    """gelu's gradient g · gelu'(x); one node if differentiated."""

    def compute(g, x):
        if approximate == "tanh":
            inner = (x + x * x * x * 0.044715) * _SQRT_2_PI
            t = tanh(inner)
            d_inner = (x * x * (3 * 0.044715) + 1) * _SQRT_2_PI
            return g * ((t + 1) * 0.5 + x * 0.5 * (1 - t * t) * d_inner)
        cdf = (erf(x * _SQRT1_2) + 1) * 0.5
        pdf = exp(x * x * -0.5) * _INV_SQRT_2PI
        return g * (cdf + x * pdf)

    return fused(GeluBackwardBackward0, (g, x), compute, approximate=approximate)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    """x Φ(x), with Φ the standard normal CDF ('none'), or its tanh approximation."""
    x = _input("gelu", input)
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _floating("GeluKernelImpl", x)
    d = opmath(x._data)
    xp = array_module(d)
    if approximate == "tanh":
        inner = (d + d * d * d * 0.044715) * _SQRT_2_PI
        r = d * 0.5 * (1 + xp.tanh(inner))
    else:
        r = d * 0.5 * (1 + unary._erf_array(xp, d * d.dtype.type(_SQRT1_2)))
    res = wrap(as_array(r.astype(x._dtype.np, copy=False)), x._dtype)
    if needs_grad(x):
        node = GeluBackward0()
        node.approximate = approximate
        node.save("self", x)
        record(node, (x,), res)
    return res


class EluBackward0(Node):
    """d elu: scale where x > 0, else alpha * scale * input_scale * exp(x * input_scale)."""

    def backward(self, g):
        return (elu_backward(g, self, False, self.saved("self")),)

    def explain(self, c: Ctx) -> Formula:
        x = c.saved("self")
        alpha, scale, k = c.attr("alpha"), c.attr("scale"), c.attr("input_scale")
        value = np.where(x > 0, scale, alpha * scale * k * np.exp(x * k))
        s = c.sym(0)
        if scale == 1 and k == 1:
            rhs = f"1 where {s} > 0, else {num(alpha)}·exp({s})"
        else:
            rhs = f"{num(scale)} where {s} > 0, else {num(alpha * scale * k)}·exp({num(k)}·{wrap_sym(s)})"
        return Formula(f"elu({s})", [Local(rhs, value)])


class EluBackwardBackward0(FusedBackward):
    """elu_backward differentiated: by the gradient the same op again, by x (or the
    result) the curvature of the negative side."""

    inputs = ("grad_output", "self_or_result")

    def grads(self, gg, wanted, g, v):
        gv = None
        if wanted[1]:
            # PyTorch's elu_double_backward: grad * grad_output * input_scale (a number:
            # mul.Scalar), times (self_or_result < 0) as the gradient's dtype
            neg = (v < 0).detach().to(gg.dtype)
            scaled = _mul_scalar(gg * g, self.input_scale)
            if self.is_result:
                gv = scaled * neg
            else:
                gv = elu_backward(scaled, self, False, v) * neg
        return (elu_backward(gg, self, self.is_result, v) if wanted[0] else None), gv

    no_explanation = BACKWARD_OF_BACKWARD


def elu_backward(g: Tensor, params, is_result: bool, v: Tensor) -> Tensor:
    """elu's gradient from x (or, for elu_, from the result v); one node if
    differentiated. `params` carries alpha, scale and input_scale."""
    alpha, scale, input_scale = params.alpha, params.scale, params.input_scale
    kernel = not is_result and kernels.lookup_pair("elu_backward", g._data, v._data)
    if kernel and not grad_mode.state.enabled:  # (create_graph records the node below)
        return wrap(kernel(g._data, v._data, alpha, scale, input_scale), g._dtype)

    def compute(g, v):
        if is_result:
            neg = g * ((v + alpha * scale) * input_scale)
        else:
            neg = g * (exp(v * input_scale) * (alpha * scale * input_scale))
        return where((v > 0).detach(), g * scale, neg)

    return fused(
        EluBackwardBackward0,
        (g, v),
        compute,
        alpha=alpha,
        scale=scale,
        input_scale=input_scale,
        is_result=is_result,
    )


class EluBackward1(Node):
    """In-place elu_ (saves its result): scale where the result > 0, else
    input_scale * (result + alpha * scale)."""

    def backward(self, g):
        return (elu_backward(g, self, True, self.saved("result")),)

    def explain(self, c: Ctx) -> Formula:
        y = c.saved("result")
        alpha, scale, k = c.attr("alpha"), c.attr("scale"), c.attr("input_scale")
        value = np.where(y > 0, scale, k * (y + alpha * scale))
        s = c.sym(0)
        return Formula(f"elu({s})", [Local(f"1 where elu > 0, else elu + {num(alpha)}", value)])


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    """x where x > 0, else alpha * (exp(x) - 1)."""
    x = _input("elu", input)
    _floating("elu_cpu", x)
    if inplace:
        check_inplace(x)
    kernel = kernels.lookup("elu", x._data)
    if kernel is not None:
        r = kernel(x._data, alpha)
    else:
        d = opmath(x._data)
        xp = array_module(d)
        r = xp.where(d > 0, d, xp.expm1(d) * d.dtype.type(alpha)).astype(x._dtype.np, copy=False)
    res = wrap(as_array(r), x._dtype)
    if needs_grad(x):
        node = EluBackward1() if inplace else EluBackward0()
        node.alpha, node.scale, node.input_scale = alpha, 1.0, 1.0
        if inplace:
            node.save("result", res, is_output=True)
        else:
            node.save("self", x)
        record(node, (x,), res)
    return _inplace_result(x, res) if inplace else res


class SiluBackward0(Node):
    """d (x σ(x)) = σ(x) (1 + x (1 - σ(x)))."""

    def backward(self, g):
        x = self.saved("self")
        if x._dtype.np == np.float16 and not grad_mode.state.enabled:
            # PyTorch's silu_backward kernel: the formula in float32, rounded once
            x32, g32 = x._data.astype(np.float32), g._data.astype(np.float32)
            s32 = np.float32(1) / (np.float32(1) + np.exp(-x32))
            r = g32 * s32 * (np.float32(1) + x32 * (np.float32(1) - s32))
            return (wrap(r.astype(np.float16), x._dtype),)
        s = sigmoid(x)
        if grad_mode.state.enabled:
            # create_graph=True: PyTorch's infinitely_differentiable_silu_backward,
            # grad_output * sigmoid * (1.0 + input * (1.0 - sigmoid)), op for op
            return (g * s * _add_scalar(x * scalar.number_minus(1.0, s), 1.0),)
        return (g * (s * (x * (1 - s) + 1)),)

    def explain(self, c: Ctx) -> Formula:
        x = c.saved("self")
        sg = logistic(x)
        s = c.sym(0)
        return Formula(
            f"silu({s})",
            [Local(f"σ({s})·(1 + {wrap_sym(s)}·(1 − σ({s})))", sg * (1 + x * (1 - sg)))],
        )


def silu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """x * sigmoid(x) (also called swish)."""
    x = _input("silu", input)
    _floating("silu_cpu", x)
    if inplace:  # the backward needs the old x: run on a snapshot, then write back
        return apply_inplace(x, silu, (), {}, "silu_")
    d = opmath(x._data)
    xp = array_module(d)
    r = d / (1 + xp.exp(-d))
    res = wrap(as_array(r.astype(x._dtype.np, copy=False)), x._dtype)
    if needs_grad(x):
        node = SiluBackward0()
        node.save("self", x)
        record(node, (x,), res)
    return res


# -- softmax / log_softmax ---------------------------------------------------------------------
SOFTMAX_DIM_WARNING = (
    "Implicit dimension choice for {name} has been deprecated. Change the call to include "
    "dim=X as an argument."
)


def _softmax_dim(name: str, ndim: int, dim) -> int:
    if dim is None:
        warnings.warn(SOFTMAX_DIM_WARNING.format(name=name), UserWarning, stacklevel=3)
        dim = 0 if ndim in (0, 1, 3) else 1
    return wrap_dim(dim, ndim)


class SoftmaxBackward0(Node):
    """d softmax: y * (g - sum(g * y)) along dim."""

    def backward(self, g):
        return (softmax_backward_data(g, self.saved("result"), self.dim),)

    def explain(self, c: Ctx) -> Formula:
        y, dim = c.saved("result"), c.attr("dim")

        def apply(g: np.ndarray) -> np.ndarray:
            return y * (g - (g * y).sum(axis=dim, keepdims=True))

        s = f"softmax({c.sym(0)}, dim={dim})"
        return Formula(s, [Local("s·(grad − sum(grad·s))", kind="map", apply=apply)])


class SoftmaxBackwardDataBackward0(FusedBackward):
    """softmax's backward differentiated: by the gradient the same op again, by the
    output gg·g - sum(y·g)·gg - g·sum(y·gg)."""

    inputs = ("grad_output", "output")

    def grads(self, gg, wanted, g, y):
        d = self.dim
        gy = None
        if wanted[1]:
            if y._data.ndim == 0:
                gy = gg * 0
            else:
                gy = g * gg - (y * g).sum(d, keepdim=True) * gg - g * (y * gg).sum(d, keepdim=True)
        return (softmax_backward_data(gg, y, d) if wanted[0] else None), gy

    no_explanation = BACKWARD_OF_BACKWARD


def softmax_backward_data(g: Tensor, y: Tensor, dim: int) -> Tensor:
    """softmax's gradient from its output y: y (g - sum(g y)); one node if differentiated."""

    exact = _exact_softmax_dtype(y)

    def compute(g, y):
        if y._data.ndim == 0:
            return g * 0
        kernel = exact and kernels.lookup_pair("softmax_backward", g._data, y._data)
        if kernel:  # PyTorch's vectorised kernel: its reduction order and fused multiply-adds
            return wrap(kernel(g._data, y._data, dim), g._dtype)
        return y * (g - (g * y).sum(dim, keepdim=True))

    return fused(SoftmaxBackwardDataBackward0, (g, y), compute, dim=dim)


def _exact_softmax_dtype(t: Tensor) -> bool:
    """True where PyTorch's float32/float64 softmax kernels apply (float16 and bfloat16
    take other paths)."""
    return t._dtype.np in (np.float32, np.float64)


class LogSoftmaxBackward0(Node):
    """d log_softmax: g - exp(y) * sum(g) along dim."""

    def backward(self, g):
        return (log_softmax_backward_data(g, self.saved("result"), self.dim),)

    def explain(self, c: Ctx) -> Formula:
        y, dim = c.saved("result"), c.attr("dim")

        def apply(g: np.ndarray) -> np.ndarray:
            return g - np.exp(y) * g.sum(axis=dim, keepdims=True)

        s = f"log_softmax({c.sym(0)}, dim={dim})"
        return Formula(s, [Local("grad − softmax·sum(grad)", kind="map", apply=apply)])


class LogSoftmaxBackwardDataBackward0(FusedBackward):
    """log_softmax's backward differentiated: by the gradient the same op again, by the
    output -gg·exp(y)·sum(g)."""

    inputs = ("grad_output", "output")

    def grads(self, gg, wanted, g, y):
        d = self.dim
        gy = None
        if wanted[1]:
            # PyTorch: -grad_output.sum(dim, true) * output.exp() * grad
            gy = gg * 0 if y._data.ndim == 0 else -g.sum(d, keepdim=True) * exp(y) * gg
        # the backward is g - exp(y) sum(g), not symmetric in g: its transpose applies
        gg_g = gg - (gg * exp(y)).sum(d, keepdim=True) if wanted[0] and y._data.ndim else None
        if wanted[0] and gg_g is None:
            gg_g = gg * 0
        return gg_g, gy

    no_explanation = BACKWARD_OF_BACKWARD


def log_softmax_backward_data(g: Tensor, y: Tensor, dim: int) -> Tensor:
    """log_softmax's gradient from its output y: g - exp(y) sum(g); one node if
    differentiated."""

    exact = _exact_softmax_dtype(y)

    def compute(g, y):
        if y._data.ndim == 0:
            return g * 0
        gd, yd = g._data, y._data
        kernel = exact and kernels.lookup_pair("log_softmax_backward", gd, yd)
        if kernel:
            return wrap(kernel(gd, yd, dim), g._dtype)
        xp = array_module(gd)
        return wrap(gd - xp.exp(yd) * gd.sum(dim, keepdims=True), g._dtype)

    return fused(LogSoftmaxBackwardDataBackward0, (g, y), compute, dim=dim)


def _softmax_common(x: Tensor, dim: int, dtype, log: bool) -> Tensor:
    if dtype is not None:
        x = x.to(dtype)
    d = x._data
    nd = d.ndim
    if x._dtype.category != FLOAT:
        kernel = "log_softmax" if log else "softmax"
        last = "_lastdim" if (dim == nd - 1 or nd <= 1) else ""
        raise NotImplementedError(
            f"\"{kernel}{last}_kernel_impl\" not implemented for '{x._dtype.scalar_name}'"
        )
    xp = array_module(d)
    kernel = _exact_softmax_dtype(x) and kernels.lookup("log_softmax" if log else "softmax", d)
    if nd == 0:
        r = xp.zeros((), d.dtype) if log else xp.ones((), d.dtype)
    elif kernel and d.size:  # PyTorch's vectorised kernel, bit for bit
        r = kernel(d, dim)
    else:
        m = xp.max(d, axis=dim, keepdims=True) if d.size else d
        shifted = d - m
        e = xp.exp(shifted)
        s = xp.sum(e, axis=dim, keepdims=True)
        r = shifted - xp.log(s) if log else e / s
    res = wrap(as_array(r.astype(x._dtype.np, copy=False)), x._dtype)
    if needs_grad(x):
        node = LogSoftmaxBackward0() if log else SoftmaxBackward0()
        node.dim = dim
        node.save("result", res, is_output=True)
        record(node, (x,), res)
    return res


@tensor_method(torch=("softmax",))
def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:  # noqa: A002
    """exp(x) / sum(exp(x)) along `dim` (computed stably)."""
    x = _input("softmax", input)
    return _softmax_common(x, _softmax_dim("softmax", x._data.ndim, dim), dtype, log=False)


@tensor_method(torch=("log_softmax",))
def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:  # noqa: A002
    """log(softmax(x)) along `dim`, computed stably as x - logsumexp(x)."""
    x = _input("log_softmax", input)
    return _softmax_common(x, _softmax_dim("log_softmax", x._data.ndim, dim), dtype, log=True)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:  # noqa: A002
    """softmax(-x) along `dim`."""
    x = _input("softmin", input)
    return _softmax_common(-x, _softmax_dim("softmin", x._data.ndim, dim), dtype, log=False)


# -- dropout -----------------------------------------------------------------------------------
@tensor_method(torch=("dropout",))
def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """Zero each element with probability p and scale the rest by 1/(1-p) (training only).

    The mask is drawn from the random generator behind torch.manual_seed; the result is
    `input * mask` (PyTorch's MulBackward0 with no edge for the mask)."""
    x = _input("dropout", input)
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or x._data.size == 0:
        return x
    mask = random_source.dropout_mask(x, p)
    if inplace:
        return x.mul_(mask)
    return arithmetic.mul(x, mask)


# -- linear ------------------------------------------------------------------------------------
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """input @ weight.T + bias, as PyTorch composes it: addmm for 2-D input with a bias,
    otherwise matmul (and a flatten/addmm/view for other ranks with a bias, unless the
    input is not contiguous: then matmul, then + bias)."""
    x = _input("linear", input)
    wt = weight.t()
    if bias is None:
        return linalg.matmul(x, wt)
    if x._data.ndim == 2:
        return linalg.addmm(bias, x, wt)
    if x._data.ndim >= 3 and not x.is_contiguous():
        # PyTorch flattens only a contiguous input; another goes through matmul, then + b.
        return arithmetic.add(linalg.matmul(x, wt), bias)
    shape = x._data.shape
    flat = x.reshape(-1, shape[-1]) if x._data.ndim != 1 else x.unsqueeze(0)
    out = linalg.addmm(bias, flat, wt)
    out_shape = shape[:-1] + (weight._data.shape[0],)
    return out.view(out_shape)


def bilinear(*args, **kwargs) -> Tensor:
    """Not part of gradshell's op library."""
    raise NotImplementedError("gradshell does not support torch.nn.functional.bilinear")


# -- losses ------------------------------------------------------------------------------------
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction(reduction: str, size_average=None, reduce=None) -> str:
    if size_average is not None or reduce is not None:
        # the legacy arguments: reduce=False means none, size_average=False means sum
        reduce = True if reduce is None else reduce
        size_average = True if size_average is None else size_average
        warnings.warn(
            "size_average and reduce args will be deprecated, please use reduction='"
            + ("none" if not reduce else ("mean" if size_average else "sum"))
            + "' instead.",
            UserWarning,
            stacklevel=3,
        )
        return "none" if not reduce else ("mean" if size_average else "sum")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _size_warning(input: Tensor, target: Tensor) -> None:  # noqa: A002
    if input._data.shape != target._data.shape:
        from gradshell.core.size import Size

        warnings.warn(
            f"Using a target size ({Size(target._data.shape)!r}) that is different to the input "
            f"size ({Size(input._data.shape)!r}). This will likely lead to incorrect results due "
            "to broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )


def _broadcast_pair(a: Tensor, b: Tensor):
    """Both tensors expanded to their common shape (PyTorch's broadcast_tensors)."""
    xp = array_module(a._data)
    try:
        shape = xp.broadcast_shapes(a._data.shape, b._data.shape)
    except ValueError:
        raise broadcast_fail(a, b) from None
    a2 = a if a._data.shape == shape else a.expand(shape)
    b2 = b if b._data.shape == shape else b.expand(shape)
    return a2, b2


def _reduced_value(r, reduction: str, dtype):
    xp = array_module(r)
    # loss.mean() / loss.sum() as PyTorch adds them up, so the last bits agree
    if reduction == "mean":
        r = summation.torch_mean(r) if r.size else xp.asarray(np.nan, r.dtype)
    elif reduction == "sum":
        r = summation.torch_sum(r)
    return wrap(as_array(xp.asarray(r).astype(dtype.np, copy=False)), dtype)


def _unreduce(g: Tensor, reduction: str, shape: tuple, count: int) -> Tensor:
    """The incoming gradient of a reduced loss, broadcast back to the elementwise shape."""
    if reduction == "mean":
        return g / count if count else g
    return g


class MseLossBackward0(Node):
    """d (x - t)² : 2 (x - t) for the input, the negative for the target (/N for mean)."""

    def backward(self, g):
        x = self.saved("self")
        t = self.saved("target")
        gx = mse_loss_backward(g, x, t, self.reduction) if self.needs[0] else None
        gt = mse_loss_backward(g, t, x, self.reduction) if self.needs[1] else None
        return gx, gt

    def explain(self, c: Ctx) -> Formula:
        x, t = c.saved("self"), c.saved("target")
        xs, ts = c.sym(0), c.sym(1)
        over, k = mean_over(c, x)
        kind = "elementwise" if c.attr("reduction") == "none" else "reduce"
        lx = Local(f"2({xs} − {ts}){over}", 2 * (x - t) * k, kind=kind) if needs(c, 0) else None
        lt = Local(f"−2({xs} − {ts}){over}", -2 * (x - t) * k, kind=kind) if needs(c, 1) else None
        name = "mse_loss" if not over else "mean"
        expr = f"mean(({xs} − {ts})²)" if over else f"{name}({xs}, {ts})"
        return Formula(expr, [lx, lt])


class MseLossBackwardBackward0(FusedBackward):
    """mse_loss_backward(g, x, t) = 2 (x - t) g (/N), differentiated."""

    inputs = ("grad_output", "self", "target")

    def grads(self, gg, wanted, g, x, t):
        reduction = self.reduction
        gg_g = gx = gt = None
        if wanted[0]:  # PyTorch: mse_loss_backward(grad, self, target), the same op again
            gg_g = mse_loss_backward(gg, x, t, reduction)
            if reduction != "none":
                gg_g = gg_g.sum()
        # PyTorch: mse_loss_double_backward(grad * grad_output, ...) for self and, negated,
        # for target, each computed on its own: 2 * g (mul.Scalar), then / N (div.Scalar)
        if wanted[1]:
            gx = _mse_double_backward(gg * g, reduction, x._data.size)
        if wanted[2]:
            gt = -_mse_double_backward(gg * g, reduction, x._data.size)
        return gg_g, gx, gt

    no_explanation = BACKWARD_OF_BACKWARD


def _mse_double_backward(g: Tensor, reduction: str, count: int) -> Tensor:
    g = _mul_scalar(g, 2)
    return scalar.div_scalar(g, count) if reduction == "mean" and count else g


def mse_loss_backward(g: Tensor, x: Tensor, t: Tensor, reduction: str) -> Tensor:
    """The gradient of mse_loss for x: 2 (x - t) g (/N for mean); one node if
    differentiated."""

    def compute(g, x, t):
        return _unreduce(g, reduction, x._data.shape, x._data.size) * (x - t) * 2

    # PyTorch computes it op by op (each rounding), not as one kernel
    return fused(MseLossBackwardBackward0, (g, x, t), compute, opmath=False, reduction=reduction)


def _two_operand_loss(fname: str, input, target):  # noqa: A002
    x = _input(fname, input)
    if not isinstance(target, Tensor):
        raise TypeError(
            f"{fname}(): argument 'target' (position 2) must be Tensor, not {type(target).__name__}"
        )
    return x, target


def mse_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    weight=None,
) -> Tensor:
    """Mean (or sum, or elementwise) squared error."""
    x, t = _two_operand_loss("mse_loss", input, target)
    if weight is not None:
        raise NotImplementedError("gradshell does not support mse_loss(weight=...)")
    _size_warning(x, t)
    reduction = _reduction(reduction, size_average, reduce)
    x, t = _broadcast_pair(x, t)
    dt = dtypes.result_type(x, t)
    xd, td = x._data.astype(dt.np, copy=False), t._data.astype(dt.np, copy=False)
    diff = xd - td
    res = _reduced_value(diff * diff, reduction, dt)
    if needs_grad(x, t):
        node = MseLossBackward0()
        node.reduction = reduction
        node.needs = (x._requires_grad, t._requires_grad)
        node.save("self", x)
        node.save("target", t)
        record(node, (x, t), res)
    return res


def l1_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    weight=None,
) -> Tensor:
    """Mean (or sum, or elementwise) absolute error: |input - target| reduced."""
    x, t = _two_operand_loss("l1_loss", input, target)
    if weight is not None:
        raise NotImplementedError("gradshell does not support l1_loss(weight=...)")
    _size_warning(x, t)
    reduction = _reduction(reduction, size_average, reduce)
    return _reduce((x - t).abs(), reduction)


class SmoothL1LossBackward0(Node):
    """d smooth_l1: (x - t)/beta inside |x - t| < beta, sign(x - t) outside."""

    def backward(self, g):
        x = self.saved("self")
        t = self.saved("target")
        r, beta = self.reduction, self.beta
        # PyTorch: smooth_l1_loss_backward(grad, self, target) for the input and, its
        # arguments swapped, (grad, target, self) for the target: two ops, two nodes
        gx = smooth_l1_loss_backward(g, x, t, r, beta) if self.needs[0] else None
        gt = smooth_l1_loss_backward(g, t, x, r, beta) if self.needs[1] else None
        return gx, gt

    def explain(self, c: Ctx) -> Formula:
        x, t, beta = c.saved("self"), c.saved("target"), c.attr("beta")
        xs, ts = c.sym(0), c.sym(1)
        over, k = mean_over(c, x)
        kind = "elementwise" if c.attr("reduction") == "none" else "reduce"
        d = x - t
        slope = np.where(np.abs(d) < beta, d / beta, np.sign(d)) * k
        rhs = f"({xs} − {ts})/{num(beta)} where |{xs} − {ts}| < {num(beta)}, else sign({xs} − {ts})"
        lx = Local(rhs + over, slope, kind=kind) if needs(c, 0) else None
        lt = Local(f"−[{rhs}]{over}", -slope, kind=kind) if needs(c, 1) else None
        return Formula(f"smooth_l1_loss({xs}, {ts})", [lx, lt])


class SmoothL1LossBackwardBackward0(FusedBackward):
    """smooth_l1_loss_backward(g, x, t) differentiated: by g the same op again; by x
    (and, negated, t) g·gg/beta where |x - t| < beta, else 0 (/N for the mean)."""

    inputs = ("grad_output", "self", "target")

    def grads(self, gg, wanted, g, x, t):
        reduction, beta = self.reduction, self.beta
        gg_g = gx = gt = None
        if wanted[0]:
            gg_g = smooth_l1_loss_backward(gg, x, t, reduction, beta)
            if reduction != "none":
                gg_g = gg_g.sum()
        # PyTorch: smooth_l1_loss_double_backward(grad * grad_output, ...), computed for
        # self and (negated) target each on its own
        if wanted[1]:
            gx = _smooth_l1_double_backward(gg * g, x, t, reduction, beta)
        if wanted[2]:
            gt = -_smooth_l1_double_backward(gg * g, x, t, reduction, beta)
        return gg_g, gx, gt

    no_explanation = BACKWARD_OF_BACKWARD


def _smooth_l1_double_backward(g: Tensor, x: Tensor, t: Tensor, reduction: str, beta):
    inside = ((x - t).abs() < beta).detach().to(g.dtype)
    r = scalar.div_scalar(g * inside, beta)  # / beta and / N: div.Scalar, DivBackward1
    return scalar.div_scalar(r, x._data.size) if reduction == "mean" and x._data.size else r


def smooth_l1_loss_backward(g: Tensor, x: Tensor, t: Tensor, reduction: str, beta) -> Tensor:
    """smooth_l1_loss's gradient for x: (x - t)/beta inside |x - t| < beta, sign(x - t)
    outside, times g (/N for mean); one node if differentiated."""

    def compute(g, x, t):
        g = _unreduce(g, reduction, x._data.shape, x._data.size)
        d = x - t
        inside = (d.abs() < beta).detach()
        return g * where(inside, d / beta, d.sign())

    return fused(
        SmoothL1LossBackwardBackward0,
        (g, x, t),
        compute,
        opmath=False,
        reduction=reduction,
        beta=beta,
    )


def smooth_l1_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """Squared error (halved, over beta) for small differences, absolute error beyond beta."""
    x, t = _two_operand_loss("smooth_l1_loss", input, target)
    _size_warning(x, t)
    reduction = _reduction(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(x, t, reduction=reduction)
    x, t = _broadcast_pair(x, t)
    dt = dtypes.result_type(x, t)
    xp = array_module(x._data)
    d = x._data.astype(dt.np, copy=False) - t._data.astype(dt.np, copy=False)
    ad = xp.abs(d)
    b = dt.np.type(beta)
    elem = xp.where(ad < b, d * d * dt.np.type(0.5) / b, ad - dt.np.type(0.5) * b)
    res = _reduced_value(elem, reduction, dt)
    if needs_grad(x, t):
        node = SmoothL1LossBackward0()
        node.reduction, node.beta = reduction, beta
        node.needs = (x._requires_grad, t._requires_grad)
        node.save("self", x)
        node.save("target", t)
        record(node, (x, t), res)
    return res


_EPSILON = 1e-12

# mul.Scalar / add.Scalar inside a backward formula (MulBackward1, AddBackward1)
_mul_scalar = scalar.mul_scalar
_add_scalar = scalar.add_scalar


class BinaryCrossEntropyBackward0(Node):
    """d bce: (x - t) / max(x (1 - x), eps) for the input, log(1-x) - log(x) for the target."""

    def backward(self, g):
        x = self.saved("self")
        t = self.saved("target")
        w = self.saved("weight") if self.has_weight else None
        grad_output = g
        g = _unreduce(g, self.reduction, x._data.shape, x._data.size)
        if w is not None:
            g = g * w
        gx = gt = None
        if self.needs[0]:
            gx = bce_backward(grad_output, g, x, t, w, self.reduction)
        if self.needs[1]:
            gt = g * ((1 - x).log() - x.log())  # (unclamped, as PyTorch: ±inf at 0 and 1)
        return gx, gt

    def explain(self, c: Ctx) -> Formula:
        if c.attr("has_weight"):
            raise Unavailable("weights")
        x, t = c.saved("self"), c.saved("target")
        xs, ts = c.sym(0), c.sym(1)
        over, k = mean_over(c, x)
        kind = "elementwise" if c.attr("reduction") == "none" else "reduce"
        lx = lt = None
        if needs(c, 0):
            value = (x - t) / np.maximum(x * (1 - x), 1e-12) * k
            lx = Local(f"({xs} − {ts}) / ({xs}(1 − {xs})){over}", value, kind=kind)
        if needs(c, 1):
            value = (np.maximum(np.log1p(-x), -100) - np.maximum(np.log(x), -100)) * k
            lt = Local(f"(log(1 − {xs}) − log({xs})){over}", value, kind=kind)
        return Formula(f"bce({xs}, {ts})", [lx, lt])


class BinaryCrossEntropyBackwardBackward0(FusedBackward):
    """binary_cross_entropy_backward differentiated (PyTorch's double-backward formulas,
    with its 1e-12 guards)."""

    inputs = ("grad_output", "self", "target")

    def grads(self, gg, wanted, grad_output, x, t):
        # PyTorch's three double-backward formulas, op for op: numbers enter as add.Scalar
        # and mul.Scalar, 1 - x as a filled tensor minus x, and the mean's 1/n as div.Scalar
        w = self.weight
        n = x._data.size if self.reduction == "mean" else 1
        gg_g = gx = gt = None
        if wanted[0]:
            denom = _add_scalar(x, _EPSILON) * _add_scalar(scalar.number_minus(1, x), _EPSILON)
            gg_g = (x - t) / denom * gg
            if w is not None:
                gg_g = gg_g * w
            gg_g = scalar.div_scalar(gg_g, n) if n != 1 else gg_g
            if self.reduction != "none":
                gg_g = gg_g.sum()
        if wanted[1]:
            num = x * x - _mul_scalar(x, 2) * t + t
            one_m_x = _add_scalar(scalar.number_minus(1, x), _EPSILON)
            gx = num / (_add_scalar(x, _EPSILON).pow(2) * one_m_x.pow(2)) * (gg * grad_output)
            if w is not None:
                gx = gx * w
            gx = scalar.div_scalar(gx, n) if n != 1 else gx
        if wanted[2]:
            gt = -gg * grad_output
            if w is not None:
                gt = gt * w
            denom = scalar.number_minus(1, x) * x
            with grad_mode.no_grad():  # PyTorch clamps the denominator in place, untracked
                denom.clamp_(min=_EPSILON)
            gt = gt / denom
            gt = scalar.div_scalar(gt, n) if n != 1 else gt
        return gg_g, gx, gt

    no_explanation = BACKWARD_OF_BACKWARD


def bce_backward(grad_output: Tensor, g: Tensor, x: Tensor, t: Tensor, w, reduction: str):
    """binary_cross_entropy's gradient for x, from the unreduced, weighted gradient g;
    one node (edges to grad_output, x, t) if differentiated."""

    def compute(grad_output, x, t):
        denom = ((1 - x) * x).clamp(min=_EPSILON)
        return g * (x - t) / denom

    return fused(
        BinaryCrossEntropyBackwardBackward0,
        (grad_output, x, t),
        compute,
        opmath=False,  # PyTorch's kernel computes in the tensors' own dtype
        reduction=reduction,
        weight=w,
    )


def binary_cross_entropy(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """-(t log x + (1 - t) log(1 - x)), the logs clamped at -100 as PyTorch does."""
    x, t = _two_operand_loss("binary_cross_entropy", input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if t._data.shape != x._data.shape:
        from gradshell.core.size import Size

        raise ValueError(
            f"Using a target size ({Size(t._data.shape)!r}) that is different to the input size "
            f"({Size(x._data.shape)!r}) is deprecated. Please ensure they have the same size."
        )
    if t._dtype is not x._dtype:
        raise RuntimeError(
            f"Found dtype {t._dtype.scalar_name} but expected {x._dtype.scalar_name}"
        )
    xd, td = x._data, t._data
    xp = array_module(xd)
    if xd.size and bool(((xd < 0) | (xd > 1)).any()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    kernel = kernels.lookup_pair("binary_cross_entropy", xd, td)
    elem = kernel(xd, td) if kernel else None
    if elem is None:
        log_x = xp.maximum(xp.log(xd), -100)
        log_1mx = xp.maximum(xp.log1p(-xd), -100)
        elem = (td - 1) * log_1mx - td * log_x
    if weight is not None:
        elem = elem * weight._data
    res = _reduced_value(elem, reduction, x._dtype)
    if needs_grad(x, t):
        node = BinaryCrossEntropyBackward0()
        node.reduction = reduction
        node.has_weight = weight is not None
        node.needs = (x._requires_grad, t._requires_grad)
        node.save("self", x)
        node.save("target", t)
        if weight is not None:
            node.save("weight", weight)
        record(node, (x, t), res)
    return res


class BinaryCrossEntropyWithLogitsBackward0(Node):
    """d bce_with_logits: σ(x) - t for the input (weighted), and for the target
    -x + (pos_weight - 1) softplus(-x) — written with tensor ops."""

    def backward(self, g):
        x = self.saved("self")
        t = self.saved("target")
        w = self.saved("weight") if self.has_weight else None
        pw = self.saved("pos_weight") if self.has_pos_weight else None
        grad_output = g
        g = _unreduce(g, self.reduction, x._data.shape, x._data.size)
        if w is not None:
            g = g * w
        gx = gt = None
        if self.needs[0]:
            # PyTorch's order: (σ(x) - t) · grad, then · weight, then / N for the mean
            if pw is None:
                gx = sigmoid(x) - t
            else:
                tw = pw * t
                gx = (tw + 1 - t) * sigmoid(x) - tw
            gx = gx * grad_output
            if w is not None:
                gx = gx * w
            if self.reduction == "mean" and x._data.size:
                gx = gx / x._data.size
        if self.needs[1]:
            gt = -x if pw is None else (pw - 1) * softplus(-x) - x
            gt = g * gt
        return gx, gt

    def explain(self, c: Ctx) -> Formula:
        if c.attr("has_weight") or c.attr("has_pos_weight"):
            raise Unavailable("weights")
        x, t = c.saved("self"), c.saved("target")
        xs, ts = c.sym(0), c.sym(1)
        over, k = mean_over(c, x)
        kind = "elementwise" if c.attr("reduction") == "none" else "reduce"
        lx = lt = None
        if needs(c, 0):
            lx = Local(f"(σ({xs}) − {ts}){over}", (logistic(x) - t) * k, kind=kind)
        if needs(c, 1):
            lt = Local(f"−{wrap_sym(xs)}{over}", -x * k, kind=kind)
        return Formula(f"bce_with_logits({xs}, {ts})", [lx, lt])


def binary_cross_entropy_with_logits(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """Binary cross entropy of sigmoid(input), computed stably from the logits."""
    x, t = _two_operand_loss("binary_cross_entropy_with_logits", input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if t._data.shape != x._data.shape:
        from gradshell.core.size import Size

        raise ValueError(
            f"Target size ({Size(t._data.shape)!r}) must be the same as input size "
            f"({Size(x._data.shape)!r})"
        )
    if t._dtype.category != FLOAT and x._dtype.category == FLOAT:
        raise RuntimeError(
            f"result type {x._dtype.scalar_name} can't be cast to the desired output type "
            f"{t._dtype.scalar_name}"
        )
    xd, td = x._data, t._data
    xp = array_module(xd)
    pw = None if pos_weight is None else pos_weight._data
    kernel = kernels.lookup_pair("bce_with_logits", xd, td)
    if kernel is not None and (pw is None or getattr(pw, "dtype", None) == xd.dtype):
        elem = kernel(xd, td, pw)  # PyTorch's composition: (1 - t) x - log_sigmoid(x)
    else:
        sp = xp.log1p(xp.exp(-xp.abs(xd))) + xp.maximum(-xd, 0)  # softplus(-x), stably
        if pos_weight is not None:
            lw = (pos_weight._data - 1) * td + 1
            elem = (1 - td) * xd + lw * sp
        else:
            elem = (1 - td) * xd + sp
    if weight is not None:
        elem = elem * weight._data
    res = _reduced_value(elem, reduction, x._dtype)
    if needs_grad(x, t):
        node = BinaryCrossEntropyWithLogitsBackward0()
        node.reduction = reduction
        node.has_weight, node.has_pos_weight = weight is not None, pos_weight is not None
        node.needs = (x._requires_grad, t._requires_grad)
        node.save("self", x)
        node.save("target", t)
        if weight is not None:
            node.save("weight", weight)
        if pos_weight is not None:
            node.save("pos_weight", pos_weight)
        record(node, (x, t), res)
    return res


# -- nll_loss / cross_entropy ------------------------------------------------------------------
class NllLossBackward0(Node):
    """d nll: -weight[t] (/ total weight for mean) at each sample's target class, 0 elsewhere
    (a constant pattern times the incoming gradient, so it is linear in g)."""

    def backward(self, g):
        self.saved("self")
        self.saved("target")
        self.saved("total_weight")
        pattern = self.pattern  # -w[t] one-hot (already divided for mean), input's shape
        if not grad_mode.state.enabled:
            gd = g._data
            if self.reduction == "none" and self.input_ndim > 1:
                gd = gd.reshape(gd.shape[:1] + (1,) + gd.shape[1:])
            return (wrap(pattern._data * gd, pattern._dtype),)
        # nll_loss_backward is one op in PyTorch: differentiated again it is one node,
        # NllLossBackwardBackward0, with edges to the incoming gradient and to the input
        node_cls = (
            NllLoss2DBackwardBackward0
            if isinstance(self, NllLoss2DBackward0)
            else NllLossBackwardBackward0
        )
        x = self.saved("self")
        unsqueeze = self.reduction == "none" and self.input_ndim > 1

        def compute(g, x):
            if unsqueeze:
                g = g.unsqueeze(1)  # (N, ...) → (N, 1, ...) against the class dimension
            return g * pattern

        return (
            fused(
                node_cls,
                (g, x),
                compute,
                opmath=False,
                target=self.saved("target"),
                weight=self.saved("weight") if "weight" in (self._saved or ()) else None,
                reduction=self.reduction,
                ignore_index=self.ignore_index,
            ),
        )

    def explain(self, c: Ctx) -> Formula:

        pattern = to_numpy(c.attr("pattern")._data).astype(np.float64)
        unsqueeze = c.attr("reduction") == "none" and c.attr("input_ndim") > 1

        def apply(g: np.ndarray) -> np.ndarray:
            return pattern * (np.expand_dims(g, 1) if unsqueeze else g)

        rhs = "−1 at each sample's target class, 0 elsewhere"
        if c.attr("reduction") == "mean":
            rhs += " (divided by the number of samples)"
        return Formula(f"nll_loss({c.sym(0)})", [Local(rhs, kind="map", apply=apply)])


class NllLoss2DBackward0(NllLossBackward0):
    """nll_loss over images (N, C, H, W): the same constant pattern times the gradient."""

    explain = NllLossBackward0.explain


def _check_target(x: Tensor, target: Tensor) -> None:
    if not isinstance(target, Tensor):
        raise TypeError(
            f"nll_loss(): argument 'target' (position 2) must be Tensor, not "
            f"{type(target).__name__}"
        )
    if target._dtype not in (dtypes.int64, dtypes.uint8):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {target._dtype.scalar_name}"
        )


def _batch_check(x: Tensor, target: Tensor) -> None:
    nd = x._data.ndim
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if nd >= 2 and target._data.ndim >= 1 and x._data.shape[0] != target._data.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({x._data.shape[0]}) to match target batch_size "
            f"({target._data.shape[0]})."
        )


class NllLossBackwardBackward0(FusedBackward):
    """nll_loss_backward(g, x) = pattern * g differentiated: linear in g (its derivative
    is nll_loss of the incoming gradient), flat in x (zeros, with no graph)."""

    inputs = ("grad_output", "self")

    def grads(self, gg, wanted, g, x):
        gg_g = None
        if wanted[0]:
            gg_g = nll_loss(
                gg,
                self.target,
                self.weight,
                ignore_index=self.ignore_index,
                reduction=self.reduction,
            )
        gx = unary.zeros_like_grad(gg) if wanted[1] else None  # PyTorch: zeros_like(grad)
        return gg_g, gx

    no_explanation = BACKWARD_OF_BACKWARD


class NllLoss2DBackwardBackward0(NllLossBackwardBackward0):
    """nll_loss_backward over images, differentiated: as NllLossBackwardBackward0."""

    no_explanation = NllLossBackwardBackward0.no_explanation


def nll_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """Negative log-likelihood of log-probabilities `input` (N, C, ...) at class indices
    `target` (N, ...), optionally weighted per class, ignoring `ignore_index`."""
    x = _input("nll_loss", input)
    reduction = _reduction(reduction, size_average, reduce)
    _batch_check(x, target)
    _check_target(x, target)
    nd = x._data.ndim
    if nd == 2 and target._data.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if nd == 1 and target._data.ndim > 0:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if nd > 2 and target._data.shape != x._data.shape[:1] + x._data.shape[2:]:
        raise RuntimeError(
            f"Expected target size {list(x._data.shape[:1] + x._data.shape[2:])}, got "
            f"{list(target._data.shape)}"
        )
    if nd == 3 or nd > 4:
        # PyTorch runs these through its 2-D (image) kernel: view to (N, C, 1, -1) and back
        n, c = x._data.shape[:2]
        flat_t = target.reshape(n, 1, -1)
        out = nll_loss(x.view(n, c, 1, -1), flat_t, weight, None, ignore_index, None, reduction)
        return out.view(target._data.shape) if reduction == "none" else out
    xd = x._data
    xp = array_module(xd)
    classes = xd.shape[1] if nd > 1 else xd.shape[0]
    # one row of class scores per target element (the class dimension moved last)
    if nd == 2:
        rows = xd
    elif nd == 1:
        rows = xd.reshape(1, classes)
    else:
        rows = xp.moveaxis(xd, 1, -1).reshape(-1, classes)
    tflat = target._data.reshape(-1)
    if tflat.dtype != np.int64:
        tflat = tflat.astype(np.int64)
    m = tflat.shape[0]
    tmin, tmax = (int(tflat.min()), int(tflat.max())) if m else (0, -1)
    ignoring = m and tmin <= ignore_index <= tmax and bool((tflat == ignore_index).any())
    if ignoring:
        valid = tflat != ignore_index
        bad = valid & ((tflat < 0) | (tflat >= classes))
    elif tmin < 0 or tmax >= classes:
        valid = None
        bad = (tflat < 0) | (tflat >= classes)
    else:
        valid = bad = None
    if bad is not None and bool(bad.any()):
        raise IndexError(f"Target {int(tflat[bad][0])} is out of bounds.")
    safe_t = tflat if valid is None else xp.where(valid, tflat, 0)
    ar = xp.arange(m)
    picked = rows[ar, safe_t]
    if weight is None and valid is None:
        wt = None  # every weight is 1: skip the multiplications
        elem = -picked
        total = xp.asarray(m, xd.dtype)
    else:
        w = weight._data.astype(xd.dtype) if weight is not None else xp.ones(classes, xd.dtype)
        wt = w[safe_t] if valid is None else xp.where(valid, w[safe_t], 0).astype(xd.dtype)
        elem = -wt * picked
        total = xp.sum(wt) if wt.size else xp.asarray(0, xd.dtype)
    if reduction == "none":
        r = elem.reshape(target._data.shape)
    else:
        # PyTorch's own cascade over the targets, for the loss and the total weight alike
        per_target = None if weight is None else w[safe_t]
        r, total = summation.torch_nll_totals(picked, per_target, valid, m)
        if reduction == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):
                r = r / total
    res = wrap(as_array(xp.asarray(r).astype(xd.dtype, copy=False)), x._dtype)
    if needs_grad(x):
        pat = xp.zeros(rows.shape, xd.dtype)
        scale = -1 / total if reduction == "mean" else -1
        pat[ar, safe_t] = scale if wt is None else wt * scale
        if nd == 1:
            pat = pat.reshape(classes)
        elif nd > 2:
            moved = xp.moveaxis(xd, 1, -1).shape
            pat = xp.ascontiguousarray(xp.moveaxis(pat.reshape(moved), -1, 1))
        node = NllLoss2DBackward0() if nd == 4 else NllLossBackward0()
        node.reduction = reduction
        node.input_ndim = nd
        node.ignore_index = ignore_index
        node.pattern = wrap(pat, x._dtype)
        node.save("self", x)
        node.save("target", target)
        node.save("total_weight", wrap(as_array(xp.asarray(total, xd.dtype)), x._dtype))
        if weight is not None:
            node.save("weight", weight)
        record(node, (x,), res)
    return res


def cross_entropy(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """log_softmax over the class dimension (1, or 0 for unbatched input) followed by
    nll_loss for class indices, or by -sum(target * log_softmax) for class probabilities."""
    x = _input("cross_entropy", input)
    reduction = _reduction(reduction, size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if not isinstance(target, Tensor):
        raise TypeError(
            f"cross_entropy(): argument 'target' (position 2) must be Tensor, not "
            f"{type(target).__name__}"
        )
    class_dim = 1 if x._data.ndim >= 2 else 0
    if target._dtype.category == FLOAT and target._data.shape == x._data.shape:
        if label_smoothing > 0:
            classes = x._data.shape[class_dim]
            target = target * (1 - label_smoothing) + label_smoothing / classes
        return _cross_entropy_probs(x, target, weight, reduction, class_dim)
    _batch_check(x, target)
    if x._dtype.category != FLOAT:
        last = "_lastdim" if class_dim == x._data.ndim - 1 else ""
        raise NotImplementedError(
            f"\"log_softmax{last}_kernel_impl\" not implemented for '{x._dtype.scalar_name}'"
        )
    if target._dtype.category == FLOAT:
        _batch_check(x, target)
    lsm = log_softmax(x, class_dim)
    nll = nll_loss(lsm, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0:
        return nll
    return _smoothed(lsm, nll, target, weight, ignore_index, reduction, label_smoothing, class_dim)


def _smoothed(lsm, nll, target, weight, ignore_index, reduction, eps, class_dim):
    """(1 - eps) * nll + eps/C * (-sum over classes of lsm), as PyTorch composes label
    smoothing for class indices (ignored targets contribute nothing)."""
    classes = lsm._data.shape[class_dim]
    scores = lsm
    if weight is not None:
        shape = [1] * lsm._data.ndim
        shape[class_dim] = classes
        scores = lsm * weight.reshape(shape)
    smooth = -scores.sum(class_dim)
    ignored = target == ignore_index
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "sum":
        smooth = smooth.sum()
    elif reduction == "mean":
        if weight is None:
            denom = (~ignored).sum().to(lsm.dtype)
        else:
            kept = target.masked_fill(ignored, 0)
            denom = weight.gather(0, kept.reshape(-1)).masked_fill(ignored.reshape(-1), 0.0).sum()
        smooth = smooth.sum() / denom
    return scalar.mul_scalar(nll, 1 - eps) + scalar.mul_scalar(smooth, eps / classes)


def _cross_entropy_probs(x, target, weight, reduction, class_dim):
    lsm = log_softmax(x, class_dim)
    prod = lsm * target
    if weight is not None:
        shape = [1] * x._data.ndim
        shape[class_dim] = weight._data.shape[0]
        prod = prod * weight.reshape(shape)
    if reduction == "none":
        return -prod.sum(class_dim)
    if reduction == "sum":
        return -prod.sum()
    n = x._data.size // x._data.shape[class_dim] if x._data.shape[class_dim] else 0
    return scalar.div_scalar(-prod.sum(), n)


# -- one_hot -----------------------------------------------------------------------------------
def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 vectors with a 1 at each value's position (a new last dimension)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(
            f"one_hot(): argument 'input' (position 1) must be Tensor, not {type(tensor).__name__}"
        )
    if tensor._dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    d = tensor._data
    xp = array_module(d)
    if num_classes == -1:
        if d.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(xp.max(d)) + 1
    if d.size:
        if int(xp.min(d)) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if int(xp.max(d)) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    out = (d[..., None] == xp.arange(num_classes)).astype(np.int64)
    return wrap(as_array(out), dtypes.int64)


def _softmax_method(self, dim, dtype=None):
    """softmax along `dim`."""
    return softmax(self, dim, dtype=dtype)


def _log_softmax_method(self, dim, dtype=None):
    """log_softmax along `dim`."""
    return log_softmax(self, dim, dtype=dtype)


install("softmax", _softmax_method)
install("log_softmax", _log_softmax_method)

_ = (BOOL, math, reduction)


def _leaky_formula(c: Ctx, v: np.ndarray) -> Formula:
    """leaky_relu: 1 where the input (or, in place, the result) is positive, else the slope."""
    slope, s = c.attr("negative_slope"), c.sym(0)
    value = np.where(v > 0, 1.0, slope)
    return Formula(f"leaky_relu({s})", [Local(f"1 where {s} > 0, else {num(slope)}", value)])
