"""Batch normalisation (`F.batch_norm`, behind `nn.BatchNorm1d/2d`): batch statistics in
training (updating running_mean/running_var in place), running statistics in evaluation,
with PyTorch's node `NativeBatchNormBackward0`.

The forward follows PyTorch's CPU kernel: per channel, alpha = invstd * weight and
beta = bias - mean * alpha, then out = x * alpha + beta; the running variance gets the
unbiased batch variance. The statistics are summed in float64 and rounded once.
"""

from __future__ import annotations

import numpy as np

from gradshell.core import dtypes, grad_mode, kernels
from gradshell.core.kernels import batchnorm as kb
from gradshell.core.size import Size
from gradshell.ops import summation
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

__all__ = ["batch_norm"]


def _channel_view(shape: tuple) -> tuple:
    """(1, C, 1, ...) for broadcasting a per-channel vector against an input of `shape`."""
    return (1, shape[1]) + (1,) * (len(shape) - 2)


def _reduce_axes(ndim: int) -> tuple:
    return (0,) + tuple(range(2, ndim))


class NativeBatchNormBackward0(Node):
    """d batch_norm. Training: dx = (g - mean(g) - x̂ mean(g x̂)) invstd w; evaluation:
    dx = g invstd w. Always dw = sum(g x̂), db = sum(g)."""

    def backward(self, g):
        x = self.saved("input")
        w = self.saved("weight") if self.has_weight else None
        mean = self.saved("save_mean")  # (C,) tensors, no grad
        invstd = self.saved("save_invstd")
        shape = x._data.shape
        cv = _channel_view(shape)
        axes = _reduce_axes(len(shape))
        n = x._data.size // shape[1] if shape[1] else 0
        need_x, need_w, need_b = self.needs
        if self.training and grad_mode.state.enabled:
            # create_graph: the batch statistics are functions of x too, so recompute
            # them with tensor operations for the second derivative to see that
            mean = x.mean(axes)
            centred = x - mean.view(cv)
            invstd = ((centred * centred).mean(axes) + self.eps).rsqrt()
        exact = self._exact(g, x, w, mean, invstd, n)
        if exact is not None:
            return exact
        m = mean.view(cv)
        s = invstd.view(cv)
        xhat_unscaled = x - m
        dotp = (g * xhat_unscaled).sum(axes)
        sum_g = g.sum(axes)
        gx = gw = gb = None
        if need_x:
            scale = s if w is None else s * w.view(cv)
            if self.training:
                k = (dotp * invstd * invstd / n).view(cv)
                gx = (g - (sum_g / n).view(cv) - xhat_unscaled * k) * scale
            else:
                gx = g * scale
        if need_w:
            gw = dotp * invstd
        if need_b:
            gb = sum_g
        return gx, gw, gb

    def _exact(self, g, x, w, mean, invstd, n: int):
        """The gradients in PyTorch's float order (``kernels.batchnorm``) for contiguous
        planes of more than one element outside create_graph; None elsewhere."""
        xd, gd = x._data, g._data
        if grad_mode.state.enabled or not kernels.applies(xd) or xd.ndim < 3:
            return None
        if n == 0 or xd.size // (xd.shape[0] * xd.shape[1]) < 2 or gd.dtype != xd.dtype:
            return None
        if gd.shape != xd.shape or not self.training:
            return None
        dt = xd.dtype
        wd = None if w is None else w._data
        md, sd = mean._data, invstd._data
        if xd.flags.c_contiguous and gd.flags.c_contiguous:
            sum_dy, dotp = kb.backward_sums(xd, gd, md)
            grad_input = kb.grad_input
        else:
            # PyTorch's strided path: at::sum for Σ dy, a serial float64 loop for the dot
            sum_dy = summation.torch_sum(gd, _reduce_axes(xd.ndim)).astype(dt)
            dotp = kb.strided_dotp(xd, gd, md)
            grad_input = kb.strided_grad_input
        need_x, need_w, need_b = self.needs
        gx = gw = gb = None
        if need_x:
            gx = wrap(as_array(grad_input(xd, gd, md, sd, wd, sum_dy, dotp, n)), x._dtype)
        if need_w:
            gw = wrap(as_array((dotp * sd.astype(np.float64)).astype(dt)), x._dtype)
        if need_b:
            gb = wrap(as_array(sum_dy.astype(dt)), x._dtype)
        return gx, gw, gb

    no_explanation = "batch statistics couple every element of a batch: no one-line formula"


def _check(x: Tensor, running_mean, running_var, weight, bias) -> int:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"batch_norm(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
        )
    if x._data.ndim < 2:
        raise RuntimeError(
            f"batch_norm(): expected input to have at least 2 dimensions, but got {x._data.ndim}"
        )
    c = x._data.shape[1]
    for name, t in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        if t is not None and t._data.size != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t._data.size}")
    others = [t for t in (weight, bias, running_mean, running_var) if t is not None]
    if x._dtype in (dtypes.float32, dtypes.float64) and any(
        t._dtype is not x._dtype for t in others
    ):  # (float16/bfloat16 inputs may use float32 parameters: PyTorch's mixed mode)
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    if x._dtype.category != FLOAT:
        raise RuntimeError(f"\"batch_norm\" not implemented for '{x._dtype.scalar_name}'")
    return c


def _verify_batch_size(shape: tuple) -> None:
    size = 1
    for i, s in enumerate(shape):
        if i != 1:
            size *= s
    if size == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {Size(shape)!r}"
        )


def batch_norm(
    input: Tensor,  # noqa: A002 - PyTorch's name
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel (dim 1) to zero mean and unit variance, then scale by
    weight and shift by bias."""
    x = input
    _check(x, running_mean, running_var, weight, bias)
    if training:
        _verify_batch_size(x._data.shape)
    use_batch = training or running_mean is None or running_var is None
    d = x._data
    xp = array_module(d)
    dt = d.dtype
    shape = d.shape
    axes = _reduce_axes(d.ndim)
    cv = _channel_view(shape)
    n = d.size // shape[1] if shape[1] else 0
    exact = (
        kernels.applies(d)
        and d.flags.c_contiguous
        and d.size > 0
        and all(t is None or t._data.dtype == dt for t in (weight, bias))
    )
    batch_stats = kb.stats(d) if use_batch and exact else None
    if use_batch and batch_stats is None:
        exact = False
    if use_batch and exact:
        mean, var_sum = batch_stats
        invstd = kb.invstd(var_sum, n, eps)
        if training and running_mean is not None and running_var is not None:
            rm, rv = running_mean._data, running_var._data
            rm[...], rv[...] = kb.running(rm.astype(dt), rv.astype(dt), mean, var_sum, n, momentum)
            running_mean._bump_version()
            running_var._bump_version()
    elif use_batch:
        wide = d.astype(xp.float64)
        mean64 = wide.mean(axis=axes)
        var_sum = ((wide - mean64.reshape(cv)) ** 2).sum(axis=axes)
        mean = mean64.astype(dt)
        invstd = (
            (1.0 / xp.sqrt(var_sum / n + eps)).astype(dt) if n else xp.full(shape[1], xp.nan, dt)
        )
        if training and running_mean is not None and running_var is not None:
            # PyTorch's CPU kernel updates in double (its accumulate type for float)
            unbiased = var_sum / (n - 1) if n > 1 else xp.full(shape[1], xp.inf)
            rm, rv = running_mean._data, running_var._data
            m64 = mean.astype(xp.float64)
            rm[...] = momentum * m64 + (1 - momentum) * rm.astype(xp.float64)
            rv[...] = momentum * unbiased + (1 - momentum) * rv.astype(xp.float64)
            running_mean._bump_version()
            running_var._bump_version()
    else:
        mean = running_mean._data.astype(dt, copy=False)
        invstd = (1 / xp.sqrt(running_var._data.astype(dt, copy=False) + dt.type(eps))).astype(dt)
    if exact:
        w = None if weight is None else weight._data
        r = kb.transform(d, mean, invstd, w, None if bias is None else bias._data)
    else:
        alpha = invstd if weight is None else invstd * weight._data.astype(dt, copy=False)
        beta = -mean * alpha if bias is None else bias._data.astype(dt, copy=False) - mean * alpha
        r = d * alpha.reshape(cv) + beta.reshape(cv)
    res = wrap(as_array(r.astype(dt, copy=False)), x._dtype)
    if needs_grad(x, weight, bias):
        node = NativeBatchNormBackward0()
        node.training = use_batch
        node.eps = eps
        node.has_weight = weight is not None
        node.needs = (
            x._requires_grad,
            weight is not None and weight._requires_grad,
            bias is not None and bias._requires_grad,
        )
        node.save("input", x)
        if weight is not None:
            node.save("weight", weight)
        node.save("save_mean", wrap(as_array(mean), x._dtype))
        node.save("save_invstd", wrap(as_array(invstd), x._dtype))
        record(node, (x, weight, bias), res)
    return res
