"""torch.nn.functional.group_norm: the channels of each sample split into groups, each
group normalised over its channels and positions, then scaled and shifted per channel,
with PyTorch's node NativeGroupNormBackward0 and its errors.

The statistics are summed in float64 and rounded once to the input's dtype (as
gradshell's layer_norm and batch_norm do); y = (x - mean) * rstd * weight + bias.
"""

from __future__ import annotations

import math

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

__all__ = ["group_norm"]


class NativeGroupNormBackward0(Node):
    """d group_norm, with x̂ = (x - mean) rstd over each group and ĝ = g · weight:
    dx = rstd (ĝ - mean(ĝ) - x̂ mean(ĝ x̂)) per group, dweight = Σ g x̂, dbias = Σ g
    (the sums over the samples and positions)."""

    no_explanation = "each output depends on its whole group's mean and variance"

    def backward(self, g):
        x = self.saved("input")
        w = self.saved("weight") if self.has_weight else None
        if self.needs[2] and w is None:
            # PyTorch 2.13's group norm backward fails for a bias without a weight
            raise RuntimeError("tensor does not have a device")
        n, c, groups = self.N, self.C, self.group
        shape = tuple(x.shape)
        if not grad_mode.state.enabled:
            return self._plain(g, x, w)
        grouped = (n, groups, (c // groups) * self.HxW)  # (explicit: n may be 0)
        per_channel = (1, c) + (1,) * (len(shape) - 2)
        xg = x.reshape(grouped)
        if grad_mode.state.enabled:
            # create_graph: the group statistics are functions of x too
            mean = xg.mean(2, keepdim=True)
            centred = xg - mean
            rstd = ((centred * centred).mean(2, keepdim=True) + self.eps).rsqrt()
        else:
            mean = self.saved("result1").reshape(n, groups, 1)
            rstd = self.saved("result2").reshape(n, groups, 1)
        xhat = ((xg - mean) * rstd).reshape(shape)
        need_x, need_w, need_b = self.needs
        batch_axes = (0,) + tuple(range(2, len(shape)))
        gx = gw = gb = None
        if need_x:
            gh = (g if w is None else g * w.reshape(per_channel)).reshape(grouped)
            xh = xhat.reshape(grouped)
            gx = (
                (gh - gh.mean(2, keepdim=True) - xh * (gh * xh).mean(2, keepdim=True)) * rstd
            ).reshape(shape)
        if need_w:
            gw = (g * xhat).sum(batch_axes)
        if need_b:
            gb = g.sum(batch_axes)
        return gx, gw, gb

    def _plain(self, g: Tensor, x: Tensor, w):
        """The gradients on the arrays (float16 in float32), each rounded once, from the
        saved statistics: per group, dx = rstd·w·dy + c2·x + c3 with
        c2 = (Σw·dy · mean − Σw·dy·x) · rstd³ / m and c3 = −c2 · mean − Σw·dy · rstd / m."""
        d = x._data
        xp = array_module(d)
        work = xp.float32 if d.dtype == xp.float16 else d.dtype.type
        n, c, groups = self.N, self.C, self.group
        per = c // groups
        m = per * self.HxW
        xc = d.astype(work).reshape(n, c, self.HxW)
        gd = g._data.astype(work).reshape(n, c, self.HxW)
        mean = self.saved("result1")._data.astype(work).reshape(n, groups, 1)
        rstd = self.saved("result2")._data.astype(work).reshape(n, groups, 1)
        ds = (gd * xc).sum(axis=2)  # (n, c)
        db = gd.sum(axis=2)
        wc = w._data.astype(work) if w is not None else xp.ones(c, work)
        need_x, need_w, need_b = self.needs
        gx = gw = gb = None
        if need_x:
            dsg = (ds * wc).reshape(n, groups, per).sum(axis=2, keepdims=True)
            dbg = (db * wc).reshape(n, groups, per).sum(axis=2, keepdims=True)
            c2 = (dbg * mean - dsg) * rstd * rstd * rstd / work(m)
            c3 = -c2 * mean - dbg * rstd / work(m)
            c1 = (rstd * wc.reshape(groups, per)).reshape(n, c, 1) if w is not None else None
            scale = c1 if c1 is not None else xp.repeat(rstd, per, axis=1)
            c2c = xp.repeat(c2, per, axis=1)
            c3c = xp.repeat(c3, per, axis=1)
            r = scale * gd + c2c * xc + c3c
            gx = wrap(as_array(r.reshape(d.shape).astype(d.dtype)), x._dtype)
        if need_w or need_b:
            mc = xp.repeat(mean, per, axis=1).reshape(n, c)
            rc = xp.repeat(rstd, per, axis=1).reshape(n, c)
        if need_w:
            r = ((ds - db * mc) * rc).sum(axis=0)
            gw = wrap(as_array(r.astype(w._data.dtype)), w._dtype)
        if need_b:
            gb = wrap(as_array(db.sum(axis=0).astype(self.bias_dtype.np)), self.bias_dtype)
        return gx, gw, gb


def _check(x: Tensor, groups: int, weight, bias) -> None:
    if x.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {x.dim()}"
        )
    shape = list(x.shape)
    n, c = shape[0], shape[1]
    size = [n * c // groups, groups] + shape[2:] if groups else shape
    if groups and math.prod(s for i, s in enumerate(size) if i != 1) == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )
    if groups <= 0 or c % groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got "
            f"input of shape {shape} and num_groups={groups}"
        )
    # PyTorch's message for a wrong bias shows the weight's shape ([0] without one)
    weight_shape = list(weight.shape) if weight is not None else [0]
    for name, t, shown in (
        ("weight", weight, None if weight is None else list(weight.shape)),
        ("bias", bias, weight_shape),
    ):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {shown} and input of shape {shape}"
            )
    others = [t for t in (weight, bias) if t is not None]
    if x._dtype in (dtypes.float32, dtypes.float64) and any(
        t._dtype is not x._dtype for t in others
    ):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    if x._dtype.category != FLOAT:
        raise NotImplementedError(
            f"\"GroupNormKernelImpl\" not implemented for '{x._dtype.scalar_name}'"
        )


def group_norm(
    input: Tensor,  # noqa: A002 - PyTorch's name
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each group of `num_groups` channel groups of each sample."""
    x = input
    _check(x, num_groups, weight, bias)
    d = x._data
    xp = array_module(d)
    dt = d.dtype
    n, c = d.shape[0], d.shape[1]
    grouped = d.reshape(n, num_groups, (c // num_groups) * math.prod(d.shape[2:]))
    wide = grouped.astype(xp.float64)
    if wide.shape[2]:
        mean64 = wide.mean(axis=2, keepdims=True)
        var = ((wide - mean64) ** 2).mean(axis=2, keepdims=True)
    else:  # empty groups: PyTorch's statistics are 0 and rstd 1/sqrt(eps)
        mean64 = xp.zeros((n, num_groups, 1))
        var = xp.zeros((n, num_groups, 1))
    # float16 is normalised in float32 and rounded once, as PyTorch's kernel does
    work = xp.float32 if dt == xp.float16 else dt
    mean = mean64.astype(work)
    rstd = (1.0 / xp.sqrt(var + eps)).astype(work)
    r = ((grouped.astype(work) - mean) * rstd).reshape(d.shape)
    per_channel = (1, c) + (1,) * (d.ndim - 2)
    if weight is not None:
        r = r * weight._data.reshape(per_channel).astype(work)
    if bias is not None:
        r = r + bias._data.reshape(per_channel).astype(work)
    res = wrap(as_array(r.astype(dt, copy=False)), x._dtype)
    mean, rstd = mean.astype(dt), rstd.astype(dt)
    if needs_grad(x, weight, bias):
        node = NativeGroupNormBackward0()
        node.N, node.C, node.group, node.eps = n, c, num_groups, eps
        node.HxW = math.prod(d.shape[2:])
        node.has_weight = weight is not None
        node.bias_dtype = bias._dtype if bias is not None else x._dtype
        node.needs = (
            x._requires_grad,
            weight is not None and weight._requires_grad,
            bias is not None and bias._requires_grad,
        )
        node.save("input", x)
        if weight is not None:
            node.save("weight", weight)
        node.save("result1", wrap(as_array(mean.reshape(n, num_groups)), x._dtype))
        node.save("result2", wrap(as_array(rstd.reshape(n, num_groups)), x._dtype))
        record(node, (x, weight, bias), res)
    return res
