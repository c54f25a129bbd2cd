"""torch.nn.functional.layer_norm: each sample normalised over its last dimensions
(`normalized_shape`), then scaled and shifted elementwise, with PyTorch's node
NativeLayerNormBackward0 and its errors.

The forward follows PyTorch's CPU kernel: per row, rstd = 1 / sqrt(var + eps) and
y = (x * rstd - mean * rstd) * weight + bias. The statistics are summed in float64 and
rounded once to the input's dtype (as gradshell's batch_norm does).
"""

from __future__ import annotations

from gradshell.core import dtypes
from gradshell.core.autograd import Node, needs_grad, record
from gradshell.core.device import array_module
from gradshell.core.tensor import Tensor, wrap
from gradshell.ops.base import FLOAT, as_array


class NativeLayerNormBackward0(Node):
    """d layer_norm, with x̂ = (x - mean) rstd over the normalised dimensions and
    ĝ = g · weight: dx = rstd (ĝ - mean(ĝ) - x̂ mean(ĝ x̂)), dweight = Σ g x̂,
    dbias = Σ g (the sums over the leading, batch dimensions)."""

    no_explanation = "each output depends on its whole row's mean and variance"

    def backward(self, g):
        x = self.saved("input")
        w = self.saved("weight") if self.has_weight else None
        mean = self.saved("mean")  # (*batch, 1, ..., 1): broadcasts against x
        rstd = self.saved("rstd")
        norm_axes = tuple(range(x.dim() - self.k, x.dim()))
        batch_axes = tuple(range(x.dim() - self.k))
        need_x, need_w, need_b = self.needs
        xhat = (x - mean) * rstd
        gx = gw = gb = None
        if need_x:
            gh = g if w is None else g * w
            gx = (
                gh - gh.mean(norm_axes, keepdim=True) - xhat * (gh * xhat).mean(norm_axes, True)
            ) * rstd
        if need_w:
            gw = (g * xhat).sum(batch_axes) if batch_axes else g * xhat
        if need_b:
            gb = g.sum(batch_axes) if batch_axes else g
        return gx, gw, gb


def _check(x: Tensor, shape: tuple, weight, bias) -> None:
    k = len(shape)
    if k == 0 or tuple(x.shape[x.dim() - k :]) != shape or x.dim() < k:
        wanted = ", ".join(str(s) for s in shape)
        size = ", ".join(str(s) for s in x.shape)
        raise RuntimeError(
            f"Given normalized_shape=[{wanted}], expected input with shape [*, {wanted}], "
            f"but got input of size[{size}]"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(t.shape)} and normalized_shape = {list(shape)}"
            )
    others = [t for t in (weight, bias) if t is not None]
    if x._dtype in (dtypes.float32, dtypes.float64) and any(
        t._dtype is not x._dtype for t in others
    ):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    if x._dtype.category != FLOAT:
        raise NotImplementedError(
            f"\"LayerNormKernelImpl\" not implemented for '{x._dtype.scalar_name}'"
        )


def layer_norm(
    input: Tensor,  # noqa: A002 - PyTorch's name
    normalized_shape,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise `input` over its last len(normalized_shape) dimensions."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    x = input
    _check(x, shape, weight, bias)
    k = len(shape)
    d = x._data
    xp = array_module(d)
    dt = d.dtype
    axes = tuple(range(d.ndim - k, d.ndim))
    wide = d.astype(xp.float64)
    mean64 = wide.mean(axis=axes, keepdims=True)
    var = ((wide - mean64) ** 2).mean(axis=axes, keepdims=True)
    mean = mean64.astype(dt)
    rstd = (1.0 / xp.sqrt(var + eps)).astype(dt)
    r = d * rstd + (-rstd * mean)
    if weight is not None:
        r = r * weight._data
    if bias is not None:
        r = r + bias._data
    res = wrap(as_array(r.astype(dt, copy=False)), x._dtype)
    if needs_grad(x, weight, bias):
        node = NativeLayerNormBackward0()
        node.k = k
        node.has_weight = weight is not None
        node.needs = (
            x._requires_grad,
            weight is not None and weight._requires_grad,
            bias is not None and bias._requires_grad,
        )
        node.save("input", x)
        if weight is not None:
            node.save("weight", weight)
        node.save("mean", wrap(as_array(mean), x._dtype))
        node.save("rstd", wrap(as_array(rstd), x._dtype))
        record(node, (x, weight, bias), res)
    return res
