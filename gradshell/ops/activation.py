"""The rest of torch.nn.functional's activations: prelu, selu, celu, mish, hardswish,
hardsigmoid, logsigmoid, softshrink, hardshrink, tanhshrink, glu and threshold.

Each forward is computed on the input's array (in float32 for float16 inputs, as
PyTorch's CPU kernels do) and records the node PyTorch records; the backward is written
with tensor operations so that a second derivative works. Where PyTorch composes an
activation in Python (tanhshrink is x - tanh(x)), so do we, for the same graph.
"""

from __future__ import annotations

import numpy as np

from gradshell.core import grad_mode
from gradshell.core.gradients import sum_to_size
from gradshell.ops.base import (
    FLOAT,
    Node,
    Tensor,
    array_module,
    as_array,
    needs_grad,
    opmath,
    record,
    wrap,
    wrap_dim,
)
from gradshell.ops.explanation import Ctx, Formula, Local, logistic, num, unary_formula, wrap_sym
from gradshell.ops.inplace import apply_inplace, check_inplace, rebase
from gradshell.ops.nn import EluBackward0, EluBackward1, elu_backward
from gradshell.ops.registry import function, op
from gradshell.ops.selection import where
from gradshell.ops.shape import cat
from gradshell.ops.unary import sigmoid, softplus, tanh, threshold_backward

__all__ = [
    "celu",
    "glu",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "logsigmoid",
    "mish",
    "prelu",
    "selu",
    "softshrink",
    "tanhshrink",
    "threshold",
]

# SELU's constants (Klambauer et al. 2017), as PyTorch stores them
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _input(fname: str, x) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{fname}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
        )
    return x


def _floating(kernel: str, x: Tensor) -> None:
    if x._dtype.category != FLOAT:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{x._dtype.scalar_name}'")


def _elementwise(x: Tensor, fwd) -> Tensor:
    """`fwd(d, xp)` on x's values (float16 computed in float32), rounded once to x's dtype."""
    d = opmath(x._data)
    r = fwd(d, array_module(d))
    return wrap(as_array(np.asarray(r).astype(x._dtype.np, copy=False)), x._dtype)


def _plain_backward(g: Tensor, x: Tensor, formula) -> Tensor | None:
    """The gradient `formula(g, x, xp)` computed on the arrays, in float32 for float16 (as
    PyTorch's fused backward kernels do) and rounded once; None when the backward itself
    is being differentiated (create_graph), where the tensor-op formula must run."""
    if grad_mode.state.enabled:
        return None
    gd, xd = opmath(g._data), opmath(x._data)
    r = formula(gd, xd.astype(gd.dtype, copy=False), array_module(gd))
    return wrap(as_array(np.asarray(r).astype(g._dtype.np, copy=False)), g._dtype)


def _record(node: Node, x: Tensor, res: Tensor, **attrs) -> Tensor:
    """Record `node` (saving x as 'self') when x needs a gradient."""
    if needs_grad(x):
        for k, v in attrs.items():
            setattr(node, k, v)
        node.save("self", x)
        record(node, (x,), res)
    return res


# -- prelu --------------------------------------------------------------------------------------
class PreluKernelBackward0(Node):
    """d prelu: for x, 1 where x > 0, else weight; for the weight, x where x ≤ 0, else 0
    (summed over the positions sharing one weight)."""

    def backward(self, g):
        x, w = self.saved("self"), self.saved("weight")
        pos = (x > 0).detach()
        gx = where(pos, g, g * w) if self.needs[0] else None
        gw = None
        if self.needs[1]:
            gw = sum_to_size(where(pos, g * 0, g * x), tuple(w._data.shape))
        return gx, gw

    def explain(self, c: Ctx) -> Formula:
        x, w = c.saved("self"), c.saved("weight")
        xs, ws = c.sym(0), c.sym(1)
        pos = x > 0
        lx = Local(f"1 where {xs} > 0, else {ws}", np.where(pos, 1.0, w)) if self.needs[0] else None
        lw = Local(f"{xs} where {xs} ≤ 0, else 0", np.where(pos, 0.0, x)) if self.needs[1] else None
        return Formula(f"prelu({xs}, {ws})", [lx, lw])


@op("prelu", torch=("prelu",))
def prelu(input: Tensor, weight: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
    """x where x > 0, else weight · x, with one learned slope per channel (dim 1) or one
    shared slope."""
    x = _input("prelu", input)
    if not isinstance(weight, Tensor):
        raise TypeError(
            f"prelu(): argument 'weight' (position 2) must be Tensor, not {type(weight).__name__}"
        )
    if x._dtype is not weight._dtype:
        raise RuntimeError(
            "prelu: Type promoting not supported. Got "
            f"{x._dtype.scalar_name} and {weight._dtype.scalar_name}"
        )
    _floating("prelu_cpu", x)
    if weight.dim() > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}"
        )
    n = weight.numel()
    if n != 1:
        if x.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = x.shape[1] if x.dim() >= 2 else 1
        if channels != n:
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {n} and channel size = {channels}."
            )
    w = weight
    if w.dim() != x.dim():  # one slope per channel, broadcast over the other dimensions
        w = w.view(() if x.dim() == 0 else (1, n) + (1,) * (x.dim() - 2))
    d = opmath(x._data)
    wd = opmath(w._data).astype(d.dtype, copy=False)
    xp = array_module(d)
    r = xp.where(d > 0, d, d * wd)
    res = wrap(as_array(r.astype(x._dtype.np, copy=False)), x._dtype)
    if needs_grad(x, w):
        node = PreluKernelBackward0()
        node.needs = (x._requires_grad, w._requires_grad)
        node.save("self", x)
        node.save("weight", w)
        record(node, (x, w), res)
    return res


# -- the elu family: selu and celu --------------------------------------------------------------
def _elu_like(fname, x, alpha, scale, input_scale, inplace, node_cls, inplace_cls, grad_scale=None):
    x = _input(fname, x)
    _floating("elu_cpu", x)
    if inplace:
        check_inplace(x)
    a, s, k = alpha, scale, input_scale

    def fwd(d, xp):
        t = d.dtype.type
        return xp.where(d > 0, d * t(s), xp.expm1(d * t(k)) * t(a * s))

    res = _elementwise(x, fwd)
    if needs_grad(x):
        node = inplace_cls() if inplace else node_cls()
        node.alpha, node.scale = alpha, scale
        node.input_scale = input_scale if grad_scale is None else grad_scale
        if inplace:
            node.save("result", res, is_output=True)
        else:
            node.save("self", x)
        record(node, (x,), res)
    if inplace:
        return rebase(x, res)
    return res


def selu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002 - PyTorch's name
    """scale · elu(x, alpha) with SELU's fixed alpha and scale (PyTorch records an
    EluBackward0 node for it)."""
    return _elu_like(
        "selu", input, _SELU_ALPHA, _SELU_SCALE, 1.0, inplace, EluBackward0, EluBackward1
    )


class CeluBackward0(Node):
    """d celu: 1 where x > 0, else exp(x / alpha)."""

    def backward(self, g):
        return (elu_backward(g, self, False, self.saved("self")),)

    def explain(self, c: Ctx) -> Formula:
        x, alpha = c.saved("self"), c.attr("alpha")
        s = c.sym(0)
        k = c.attr("input_scale")  # 1/alpha, as the backward takes it
        value = np.where(x > 0, 1.0, alpha * k * np.exp(x * k))
        return Formula(
            f"celu({s}, {num(alpha)})",
            [Local(f"1 where {s} > 0, else exp({wrap_sym(s)}/{num(alpha)})", value)],
        )


class CeluBackward1(Node):
    """In-place celu_ (saves its result y): 1 where y > 0, else y / alpha + 1."""

    def backward(self, g):
        return (elu_backward(g, self, True, self.saved("result")),)

    def explain(self, c: Ctx) -> Formula:
        y, alpha = c.saved("result"), c.attr("alpha")
        s = c.sym(0)
        value = np.where(y > 0, 1.0, (y + alpha) * c.attr("input_scale"))
        return Formula(
            f"celu({s}, {num(alpha)})",
            [Local(f"1 where celu > 0, else celu/{num(alpha)} + 1", value)],
        )


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    """x where x > 0, else alpha · (exp(x / alpha) - 1)."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    # PyTorch's celu backward takes 1/alpha from alpha rounded to float32 (its forward
    # does not), which shows in float64 gradients
    grad_scale = 1.0 / float(np.float32(alpha))
    return _elu_like(
        "celu", input, alpha, 1.0, 1.0 / alpha, inplace, CeluBackward0, CeluBackward1, grad_scale
    )


# -- smooth gates: mish, logsigmoid -------------------------------------------------------------
def _mish_grad(g, x, xp):
    s = 1 / (1 + xp.exp(-x))
    t = xp.tanh(xp.log1p(xp.exp(x)))
    return g * (t + x * s * (1 - t * t))


class MishBackward0(Node):
    """d (x tanh(softplus(x))) = tanh(sp) + x σ(x) (1 − tanh(sp)²)."""

    def backward(self, g):
        x = self.saved("self")
        plain = _plain_backward(g, x, _mish_grad)
        if plain is not None:
            return (plain,)
        t = tanh(softplus(x))
        return (g * (t + x * sigmoid(x) * (1 - t * t)),)

    def explain(self, c: Ctx) -> Formula:
        x = c.saved("self")
        t = np.tanh(np.logaddexp(0, x))
        s = c.sym(0)
        value = t + x * logistic(x) * (1 - t * t)
        rhs = f"tanh(softplus({s})) + {wrap_sym(s)}·σ({s})·(1 − tanh²(softplus({s})))"
        return Formula(f"mish({s})", [Local(rhs, value)])


def mish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002 - PyTorch's name
    """x · tanh(softplus(x))."""
    x = _input("mish", input)
    _floating("mish_cpu", x)
    if inplace:  # the backward needs the old x: run on a snapshot, then write back
        return apply_inplace(x, mish, (), {}, "mish_")
    res = _elementwise(x, lambda d, xp: d * xp.tanh(xp.logaddexp(d.dtype.type(0), d)))
    return _record(MishBackward0(), x, res)


def _logsigmoid_grad(g, x, xp, dt):
    # exp(−|x|) is the buffer PyTorch's forward keeps, in the input's dtype
    z = xp.exp(-xp.abs(x)).astype(dt).astype(x.dtype)
    neg = x < 0
    return g * (xp.where(neg, 1, 0) - xp.where(neg, 1, -1) * (z / (1 + z)))


class LogSigmoidBackward0(Node):
    """d log σ(x) = 1 − σ(x) = σ(−x)."""

    def backward(self, g):
        x = self.saved("self")
        dt = x._dtype.np
        plain = _plain_backward(g, x, lambda g, x, xp: _logsigmoid_grad(g, x, xp, dt))
        if plain is not None:
            return (plain,)
        return (g * sigmoid(-x),)

    explain = unary_formula("logsigmoid", "σ(−{x})", lambda c: logistic(-c.saved("self")))


def logsigmoid(input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
    """log(1 / (1 + exp(−x))), computed stably as min(x, 0) − log1p(exp(−|x|))."""
    x = _input("log_sigmoid_forward", input)
    _floating("log_sigmoid_cpu", x)
    res = _elementwise(x, lambda d, xp: xp.minimum(d, 0) - xp.log1p(xp.exp(-xp.abs(d))))
    return _record(LogSigmoidBackward0(), x, res)


# -- piecewise-linear gates: hardswish, hardsigmoid ---------------------------------------------
def _hardswish_grad(g, x, xp):
    t = x.dtype.type
    return xp.where(x <= -3, t(0), xp.where(x < 3, g * (x / t(3) + t(0.5)), g))


class HardswishBackward0(Node):
    """d hardswish: 0 for x ≤ −3, x/3 + 1/2 for −3 < x < 3, 1 for x ≥ 3."""

    def backward(self, g):
        x = self.saved("self")
        plain = _plain_backward(g, x, _hardswish_grad)
        if plain is not None:
            return (plain,)
        low = (x <= -3).detach()
        mid = (x < 3).detach()
        return (where(low, 0.0, where(mid, g * (x / 3 + 0.5), g)),)

    explain = unary_formula(
        "hardswish",
        "0 for {x} ≤ −3, {x}/3 + 1/2 below 3, else 1",
        lambda c: np.where(
            c.saved("self") <= -3,
            0.0,
            np.where(c.saved("self") < 3, c.saved("self") / 3 + 0.5, 1.0),
        ),
    )


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002 - PyTorch's name
    """x · relu6(x + 3) / 6."""
    x = _input("hardswish", input)
    _floating("hardswish_cpu", x)
    if inplace:
        return apply_inplace(x, hardswish, (), {}, "hardswish_")
    res = _elementwise(x, lambda d, xp: d * xp.clip(d + 3, 0, 6) / 6)
    return _record(HardswishBackward0(), x, res)


class HardsigmoidBackward0(Node):
    """d hardsigmoid: 1/6 for −3 < x < 3, else 0."""

    def backward(self, g):
        x = self.saved("self")
        inside = ((x > -3) & (x < 3)).detach()
        # PyTorch's kernel multiplies by 1/6 as a float32 constant, in every dtype
        return (where(inside, g * float(np.float32(1 / 6)), 0.0),)

    explain = unary_formula(
        "hardsigmoid",
        "1/6 where −3 < {x} < 3, else 0",
        lambda c: ((c.saved("self") > -3) & (c.saved("self") < 3)) * float(np.float32(1 / 6)),
    )


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """relu6(x + 3) / 6."""
    x = _input("hardsigmoid", input)
    _floating("hardsigmoid_cpu", x)
    if inplace:
        return apply_inplace(x, hardsigmoid, (), {}, "hardsigmoid_")
    res = _elementwise(x, lambda d, xp: xp.clip(d + 3, 0, 6) / 6)
    return _record(HardsigmoidBackward0(), x, res)


# -- shrinkage ----------------------------------------------------------------------------------
class SoftshrinkBackward0(Node):
    """d softshrink: 1 where |x| > lambda, else 0."""

    def backward(self, g):
        outside = (self.saved("self").abs() > self.lambd).detach()
        return (where(outside, g, 0.0),)

    def explain(self, c: Ctx) -> Formula:
        x, lam = c.saved("self"), c.attr("lambd")
        s = c.sym(0)
        return Formula(
            f"softshrink({s}, {num(lam)})",
            [Local(f"1 where |{s}| > {num(lam)}, else 0", (np.abs(x) > lam) * 1.0)],
        )


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002 - PyTorch's name
    """x − lambda above lambda, x + lambda below −lambda, 0 between."""
    x = _input("softshrink", input)
    _floating("softshrink_check", x)
    big = float(np.finfo(x._dtype.np).max)
    if not 0 <= lambd <= big:
        raise RuntimeError(
            f"lambda must be in range [0, {big:g}] for input dtype "
            f"{x._dtype.scalar_name}, but found {lambd:g}"
        )

    def fwd(d, xp):
        lam = d.dtype.type(lambd)
        return xp.where(d > lam, d - lam, xp.where(d < -lam, d + lam, d * 0))

    return _record(SoftshrinkBackward0(), x, _elementwise(x, fwd), lambd=lambd)


class HardshrinkBackward0(Node):
    """d hardshrink: 1 where |x| > lambda, else 0."""

    def backward(self, g):
        outside = (self.saved("self").abs() > self.lambd).detach()
        return (where(outside, g, 0.0),)

    def explain(self, c: Ctx) -> Formula:
        x, lam = c.saved("self"), c.attr("lambd")
        s = c.sym(0)
        return Formula(
            f"hardshrink({s}, {num(lam)})",
            [Local(f"1 where |{s}| > {num(lam)}, else 0", (np.abs(x) > lam) * 1.0)],
        )


@op("hardshrink", torch=("hardshrink",))
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002 - PyTorch's name
    """x where |x| > lambda, else 0."""
    x = _input("hardshrink", input)
    _floating("hardshrink_cpu", x)

    def fwd(d, xp):
        return xp.where(xp.abs(d) > d.dtype.type(lambd), d, d.dtype.type(0))

    return _record(HardshrinkBackward0(), x, _elementwise(x, fwd), lambd=lambd)


def tanhshrink(input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
    """x − tanh(x) (composed as PyTorch composes it: SubBackward0 over TanhBackward0)."""
    x = _input("tanhshrink", input)
    return x - x.tanh()


# -- threshold ----------------------------------------------------------------------------------
class ThresholdBackward0(Node):
    """d threshold: 1 where x > threshold, else 0."""

    def backward(self, g):
        return (threshold_backward(g, self.saved("self"), self.threshold),)

    def explain(self, c: Ctx) -> Formula:
        x, th = c.saved("self"), c.attr("threshold")
        s = c.sym(0)
        return Formula(
            f"threshold({s}, {num(th)})",
            [Local(f"1 where {s} > {num(th)}, else 0", (x > th) * 1.0)],
        )


class ThresholdBackward1(ThresholdBackward0):
    """In-place threshold_ (saving a copy of the old x): 1 where x > threshold, else 0."""

    explain = ThresholdBackward0.explain


def _threshold(x: Tensor, th, val, node_cls) -> Tensor:
    dt = x._dtype.np
    d = x._data
    xp = array_module(d)
    # both numbers are cast to x's dtype first (an integer tensor truncates them)
    r = xp.where(d > np.array(th).astype(dt), d, np.array(val).astype(dt))
    res = wrap(as_array(r.astype(dt, copy=False)), x._dtype)
    return _record(node_cls(), x, res, threshold=th)


def threshold(
    input: Tensor,  # noqa: A002 - PyTorch's name
    threshold: float,
    value: float,
    inplace: bool = False,
) -> Tensor:
    """x where x > threshold, else value."""
    x = _input("threshold", input)
    if inplace:  # PyTorch's threshold_ saves a copy of the old x for its backward
        return apply_inplace(
            x, _threshold, (threshold, value, ThresholdBackward1), {}, "threshold_"
        )
    return _threshold(x, threshold, value, ThresholdBackward0)


# -- glu ----------------------------------------------------------------------------------------
class GluBackward0(Node):
    """d (a σ(b)), with a and b the halves of x along dim: σ(b) for a, a σ(b)(1 − σ(b))
    for b."""

    def backward(self, g):
        x = self.saved("self")
        dim = self.dim
        half = x.shape[dim] // 2

        dt = x._dtype.np

        def grad(g, x, xp):
            a, b = xp.split(x, [half], axis=dim)
            # PyTorch's kernel rounds σ(b) to the input's dtype first
            s = (1 / (1 + xp.exp(-b))).astype(dt).astype(b.dtype)
            return xp.concatenate([g * s, g * a * s * (1 - s)], axis=dim)

        plain = _plain_backward(g, x, grad)
        if plain is not None:
            return (plain,)
        a, b = x.narrow(dim, 0, half), x.narrow(dim, half, half)
        s = sigmoid(b)
        return (cat([g * s, g * a * s * (1 - s)], dim),)

    def explain(self, c: Ctx) -> Formula:
        x, dim = c.saved("self"), c.attr("dim")
        half = x.shape[dim] // 2
        a, b = np.split(x, [half], axis=dim)
        s = logistic(b)
        xs = c.sym(0)

        def apply(g):
            return np.concatenate([g * s, g * a * s * (1 - s)], axis=dim)

        rhs = "σ(b) for the first half a, a·σ(b)·(1 − σ(b)) for the second half b"
        return Formula(f"glu({xs}, dim={dim})", [Local(rhs, kind="map", apply=apply)])


def glu(input: Tensor, dim: int = -1) -> Tensor:  # noqa: A002 - PyTorch's name
    """a · σ(b), with a and b the two halves of x along `dim`."""
    x = _input("glu", input)
    if x.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = wrap_dim(dim, x.dim())
    size = x.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    _floating("glu_cpu", x)
    half = size // 2

    def fwd(d, xp):
        a, b = xp.split(d, [half], axis=dim)
        return a / (1 + xp.exp(-b))

    return _record(GluBackward0(), x, _elementwise(x, fwd), dim=dim)


# -- their names in the torch namespace (without the functional forms' inplace flag) ----------
_threshold_op = threshold  # (the torch forms' parameter `threshold` hides the function)


def _torch_selu(input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
    """torch.selu."""
    return selu(input)


def _torch_selu_(input: Tensor) -> Tensor:  # noqa: A002
    """torch.selu_: selu in place."""
    return selu(input, inplace=True)


def _torch_celu(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    """torch.celu."""
    return celu(input, alpha)


def _torch_celu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    """torch.celu_: celu in place."""
    return celu(input, alpha, inplace=True)


def _torch_threshold(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: A002
    """torch.threshold."""
    return _threshold_op(input, threshold, value)


def _torch_threshold_(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: A002
    """torch.threshold_: threshold in place."""
    return _threshold_op(input, threshold, value, inplace=True)


selu_ = _torch_selu_
celu_ = _torch_celu_
threshold_ = _torch_threshold_

for _name, _fn in (
    ("selu", _torch_selu),
    ("selu_", _torch_selu_),
    ("celu", _torch_celu),
    ("celu_", _torch_celu_),
    ("threshold", _torch_threshold),
    ("threshold_", _torch_threshold_),
):
    _fn.__name__ = _name
    function(_name, _fn)
