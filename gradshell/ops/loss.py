"""The further losses of torch.nn.functional: kl_div, huber_loss, soft_margin_loss,
margin_ranking_loss, cosine_embedding_loss and triplet_margin_loss (over pairwise_distance).

huber_loss and soft_margin_loss are single PyTorch kernels with their own nodes
(HuberLossBackward0, SoftMarginLossBackward0). The others PyTorch composes out of other
ops, and so do we, op for op, so that their graphs show the same nodes (kl_div's
SubBackward0 over MulBackward0, triplet_margin_loss's NormBackward1, ...).
"""

from __future__ import annotations

import warnings

import numpy as np

from gradshell.core import dtypes, grad_mode
from gradshell.ops.base import (
    FLOAT,
    Node,
    Tensor,
    array_module,
    as_array,
    needs_grad,
    record,
    wrap,
)
from gradshell.ops.distance import pairwise_distance
from gradshell.ops.explanation import Ctx, Formula, Local, mean_over, needs, num
from gradshell.ops.nn import (
    _broadcast_pair,
    _reduce,
    _reduced_value,
    _reduction,
    _size_warning,
    _two_operand_loss,
    _unreduce,
)
from gradshell.ops.scalar import add_scalar, sub_scalar
from gradshell.ops.selection import where
from gradshell.ops.unary import exp, sigmoid

__all__ = [
    "cosine_embedding_loss",
    "huber_loss",
    "kl_div",
    "margin_ranking_loss",
    "pairwise_distance",
    "soft_margin_loss",
    "triplet_margin_loss",
]

_KL_MEAN_WARNING = (
    "reduction: 'mean' divides the total loss by both the batch size and the support size."
    "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
    "'mean' will be changed to behave the same as 'batchmean' in the next major release."
)


def _constant(data, dtype) -> Tensor:
    return wrap(as_array(np.asarray(data).astype(dtype.np, copy=False)), dtype)


# -- kl_div -------------------------------------------------------------------------------------
def _xlogy_array(a, b):
    """a · log(b), 0 where a is 0 (unless b is NaN)."""
    xp = array_module(a)
    with np.errstate(all="ignore"):
        return xp.where((a == 0) & ~xp.isnan(b), a.dtype.type(0), a * xp.log(b))


class XlogyBackward0(Node):
    """d (x log y): log y where x ≠ 0 (else 0) for x, x / y for y."""

    def backward(self, g):
        x, y = self.saved("self"), self.saved("other")
        gx = gy = None
        if self.needs[0]:
            nonzero = (x != 0).detach().to(x.dtype)
            gx = g * xlogy(nonzero, y)
        if self.needs[1]:
            gy = g * x / y
        return gx, gy

    def explain(self, c: Ctx) -> Formula:
        x, y = c.saved("self"), c.saved("other")
        xs, ys = c.sym(0), c.sym(1)
        with np.errstate(all="ignore"):
            lx = np.where(x != 0, np.log(y), 0.0)
            ly = x / y
        return Formula(
            f"xlogy({xs}, {ys})",
            [
                Local(f"log {ys} where {xs} ≠ 0, else 0", lx) if needs(c, 0) else None,
                Local(f"{xs}/{ys}", ly) if needs(c, 1) else None,
            ],
        )


def xlogy(x: Tensor, y: Tensor) -> Tensor:
    """x · log(y), 0 where x is 0: PyTorch's xlogy, as kl_div uses it (two tensors of one
    dtype)."""
    res = wrap(as_array(_xlogy_array(x._data, y._data)), x._dtype)
    if needs_grad(x, y):
        node = XlogyBackward0()
        node.needs = (x._requires_grad, y._requires_grad)
        node.save("self", x)
        node.save("other", y)
        record(node, (x, y), res)
    return res


def kl_div(
    input: Tensor,  # noqa: A002 - PyTorch's name
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """Kullback-Leibler divergence of `target` from `input` (log-probabilities):
    target · (log target − input), or with log_target exp(target) · (target − input)."""
    x, t = _two_operand_loss("kl_div", input, target)
    batchmean = False
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    elif reduction == "batchmean":
        batchmean, reduction = True, "sum"
    else:
        if reduction == "mean":
            warnings.warn(_KL_MEAN_WARNING, UserWarning, stacklevel=2)
        reduction = _reduction(reduction)
    if x._dtype.category != FLOAT or t._dtype.category != FLOAT:
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        out = exp(t) * (t - x)
    else:
        out = xlogy(t, t) - t * x
    reduced = _reduce(out, reduction)
    if batchmean and x.dim() != 0:
        # PyTorch divides by the batch size as a tensor (DivBackward0, no second edge)
        reduced = reduced / _constant(np.int64(x.shape[0]), dtypes.int64)
    return reduced


# -- huber_loss ---------------------------------------------------------------------------------
class HuberLossBackward0(Node):
    """d huber: x − t inside |x − t| ≤ delta, delta · sign(x − t) outside (/N for mean);
    the negative for the target."""

    def backward(self, g):
        x, t = self.saved("self"), self.saved("target")
        g = _unreduce(g, self.reduction, x._data.shape, x._data.size)
        d = x - t
        lo = (d < -self.delta).detach()
        hi = (d > self.delta).detach()
        gx = where(lo, g * -self.delta, where(hi, g * self.delta, d * g))
        return (gx if self.needs[0] else None), (-gx if self.needs[1] else None)

    def explain(self, c: Ctx) -> Formula:
        x, t, delta = c.saved("self"), c.saved("target"), c.attr("delta")
        xs, ts = c.sym(0), c.sym(1)
        over, k = mean_over(c, x)
        kind = "elementwise" if c.attr("reduction") == "none" else "reduce"
        d = x - t
        slope = np.clip(d, -delta, delta) * k
        rhs = f"{xs} − {ts} clipped to [−{num(delta)}, {num(delta)}]"
        lx = Local(rhs + over, slope, kind=kind) if needs(c, 0) else None
        lt = Local(f"−[{rhs}]{over}", -slope, kind=kind) if needs(c, 1) else None
        return Formula(f"huber_loss({xs}, {ts})", [lx, lt])


def huber_loss(
    input: Tensor,  # noqa: A002 - PyTorch's name
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """½ (x − t)² where |x − t| < delta, delta (|x − t| − ½ delta) beyond."""
    x, t = _two_operand_loss("huber_loss", input, target)
    if weight is not None:
        raise NotImplementedError(
            "gradshell does not support torch.nn.functional.huber_loss with weight= yet"
        )
    _size_warning(x, t)
    reduction = _reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    x, t = _broadcast_pair(x, t)
    dt = x._dtype  # PyTorch's result takes the input's dtype
    wide = dtypes.result_type(x, t)
    xp = array_module(x._data)
    d = x._data.astype(wide.np, copy=False) - t._data.astype(wide.np, copy=False)
    ad = xp.abs(d)
    h = wide.np.type(0.5)
    dl = wide.np.type(delta)
    elem = xp.where(ad < dl, h * d * d, dl * (ad - h * dl)).astype(dt.np, copy=False)
    res = _reduced_value(elem, reduction, dt)
    if needs_grad(x, t):
        node = HuberLossBackward0()
        node.reduction, node.delta = reduction, delta
        node.needs = (x._requires_grad, t._requires_grad)
        node.save("self", x)
        node.save("target", t)
        record(node, (x, t), res)
    return res


# -- soft_margin_loss ---------------------------------------------------------------------------
class SoftMarginLossBackward0(Node):
    """d log(1 + exp(−t x)) = −t σ(−t x) (/N for mean)."""

    def backward(self, g):
        x, t = self.saved("self"), self.saved("target")
        if not grad_mode.state.enabled:
            return (self._plain(g, x, t),)
        g = _unreduce(g, self.reduction, x._data.shape, x._data.size)
        return (g * -t * sigmoid(-(t * x)),)

    def _plain(self, g: Tensor, x: Tensor, t: Tensor) -> Tensor:
        """PyTorch's kernel, op for op in the input's dtype: z = exp(−t x), then
        t z · (−norm) / (1 + z) · grad."""
        xd, td = x._data, t._data
        dt = xd.dtype
        z = np.exp(-td * xd).astype(dt)
        norm = 1.0 / xd.size if self.reduction == "mean" and xd.size else 1.0
        scale = np.float64(-norm).astype(np.float32 if dt == np.float16 else dt)
        r = ((td * z).astype(scale.dtype) * scale).astype(dt)
        r = (r / (z + dt.type(1))).astype(dt)
        r = (r * g._data).astype(dt)
        return wrap(as_array(r), x._dtype)

    def explain(self, c: Ctx) -> Formula:
        x, t = c.saved("self"), c.saved("target")
        xs = c.sym(0)
        over, k = mean_over(c, x)
        kind = "elementwise" if c.attr("reduction") == "none" else "reduce"
        slope = -t / (1 + np.exp(t * x)) * k
        return Formula(
            f"soft_margin_loss({xs}, target)",
            [Local(f"−target·σ(−target·{xs}){over}", slope, kind=kind)],
        )


def soft_margin_loss(
    input: Tensor,  # noqa: A002 - PyTorch's name
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """log(1 + exp(−target · input)), for targets ±1."""
    x, t = _two_operand_loss("soft_margin_loss", input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if t._requires_grad:
        raise RuntimeError(
            "The function 'soft_margin_loss' is not differentiable with respect to argument "
            "'target'. This input cannot have requires_grad True."
        )
    bx, t = _broadcast_pair(x, t)
    if bx._data.shape != x._data.shape:  # only the target broadcasts, to the input's shape
        raise RuntimeError(
            f"output with shape {list(x.shape)} doesn't match the broadcast shape {list(bx.shape)}"
        )
    dt = x._dtype
    wide = dtypes.result_type(x, t)
    xp = array_module(x._data)
    z = -(x._data.astype(wide.np, copy=False) * t._data.astype(wide.np, copy=False))
    elem = xp.log1p(xp.exp(z)).astype(dt.np, copy=False)
    res = _reduced_value(elem, reduction, dt)
    if needs_grad(x):
        node = SoftMarginLossBackward0()
        node.reduction = reduction
        node.save("self", x)
        node.save("target", t if t._dtype is dt else t.to(dt))
        record(node, (x,), res)
    return res


# -- margin_ranking_loss ------------------------------------------------------------------------
def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, −target · (input1 − input2) + margin)."""
    reduction = _reduction(reduction, size_average, reduce)
    if not input1.dim() == input2.dim() == target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got "
            f"sizes: input1: {input1.size()!r}, input2: {input2.size()!r}, "
            f"target: {target.size()!r} "
        )
    out = add_scalar(-target * (input1 - input2), margin).clamp_min(0)
    return _reduce(out, reduction)


# -- cosine_embedding_loss ----------------------------------------------------------------------
_COS_EPSILON = 1e-12


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """1 − cos(input1, input2) where target is 1, max(0, cos − margin) where it is −1."""
    reduction = _reduction(reduction, size_average, reduce)
    if target.dim() not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target.dim() == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError(
            "1D target tensor expects 2D input tensors, but found inputs with sizes "
            f"{_sizes(input1)} and {_sizes(input2)}."
        )
    if target.dim() == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError(
            "0D target tensor expects 1D input tensors, but found inputs with sizes "
            f"{_sizes(input1)} and {_sizes(input2)}."
        )
    dim = input1.dim() - 1
    prod_sum = (input1 * input2).sum(dim)
    mag1 = add_scalar((input1 * input1).sum(dim), _COS_EPSILON)
    mag2 = add_scalar((input2 * input2).sum(dim), _COS_EPSILON)
    cos = prod_sum / (mag1 * mag2).sqrt_()
    zeros = _constant(np.zeros(cos.shape), cos._dtype)
    one = _constant(np.ones(()), cos._dtype)
    pos = one - cos
    neg = sub_scalar(cos, margin).clamp_min_(0)
    out = where(target == 1, pos, zeros) + where(target == -1, neg, zeros)
    return _reduce(out, reduction)


# -- triplet_margin_loss (over pairwise_distance) ------------------------------------------------
def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, d(anchor, positive) − d(anchor, negative) + margin), with d the pairwise
    p-distance (with swap, the smaller of d(a, n) and d(p, n))."""
    reduction = _reduction(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, pos, neg = anchor.dim(), positive.dim(), negative.dim()
    if not a == pos == neg:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same "
            f"number of dimensions, but got: anchor {a}D, positive {pos}D, and negative "
            f"{neg}D inputs"
        )
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = d_neg.minimum(pairwise_distance(positive, negative, p, eps))
    out = (add_scalar(d_pos, margin) - d_neg).clamp_min(0)
    return _reduce(out, reduction)
