"""torch.nn.functional.layer_norm: each sample normalised over its last dimensions
(`normalized_shape`), then scaled and shifted elementwise, with PyTorch's node
NativeLayerNormBackward0 and its errors.

The forward follows PyTorch's CPU kernel: per row, rstd = 1 / sqrt(var + eps) and
y = (x * rstd - mean * rstd) * weight + bias. The statistics are summed in float64 and
rounded once to the input's dtype (as gradshell's batch_norm does).
"""

from __future__ import annotations

from gradshell.core import dtypes, grad_mode
from gradshell.core.autograd import Node, needs_grad, record
from gradshell.core.device import array_module
from gradshell.core.tensor import Tensor, wrap
from gradshell.ops.base import FLOAT, as_array
from gradshell.ops.explanation import BACKWARD_OF_BACKWARD


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
        if not grad_mode.state.enabled:
            return _layer_norm_grads(g, x, w, mean, rstd, self.k, self.needs)
        # create_graph=True: PyTorch's native_layer_norm_backward is one op, so the three
        # gradients are the outputs of one NativeLayerNormBackwardBackward0 node (edges to
        # grad_out, input, mean, rstd, weight and bias, as its schema lists them)
        with grad_mode.no_grad():
            grads = _layer_norm_grads(g, x, w, mean, rstd, self.k, self.needs)
        b = self.bias
        if not needs_grad(g, x, w, b):
            return grads
        node = NativeLayerNormBackwardBackward0()
        node.k = self.k
        node.save("grad_out", g)
        node.save("input", x)
        node.save("mean", mean)
        node.save("rstd", rstd)
        if w is not None:
            node.save("weight", w)
        node.needs = (g._requires_grad, x._requires_grad, w is not None and w._requires_grad)
        inputs = (g, x, None, None, w, b)
        linked = False
        for nr, out in enumerate(grads):
            if out is not None:
                record(node, inputs, out, 0)  # the first output recorded links the edges
                out._output_nr = nr
                linked = True
        assert linked
        return grads


class NativeLayerNormBackwardBackward0(Node):
    """layer_norm's backward, differentiated: from the gradients ggx, ggw, ggb of its three
    outputs, those of the incoming gradient g, the input x and the weight w. With
    P(v) = v - mean(v) - x̂ mean(v x̂) over a row and r its rstd (dx̂ = r P(dx),
    dr = -r² mean(x̂ dx)):
    dg = w r P(ggx) + ggw x̂ + ggb; dw = Σ g r P(ggx);
    dx = -r² (mean(ggx (ĝ - mean(ĝ) - x̂ m)) x̂ + m P(ggx) + mean(ggx x̂) P(ĝ)) + r P(g ggw),
    with ĝ = g w and m = mean(ĝ x̂). (PyTorch writes the same derivative with other
    intermediate ops: the values agree, the inner nodes of a third derivative do not.)"""

    num_outputs = 3
    no_explanation = BACKWARD_OF_BACKWARD

    def backward(self, ggx, ggw, ggb):
        g = self.saved("grad_out")
        x = self.saved("input")
        r = self.saved("rstd")
        xhat = (x - self.saved("mean")) * r
        w = self.saved("weight") if "weight" in (self._saved or ()) else None
        axes = tuple(range(x.dim() - self.k, x.dim()))
        batch = tuple(range(x.dim() - self.k))
        need_g, need_x, need_w = self.needs

        def mean(v):
            return v.mean(axes, keepdim=True)

        def project(v):  # P(v)
            return v - mean(v) - xhat * mean(v * xhat)

        def batch_sum(v):
            return v.sum(batch) if batch else v

        p_ggx = project(ggx) * r if ggx is not None else None
        dg = dx = dw = None
        if need_g:
            parts = []
            if p_ggx is not None:
                parts.append(p_ggx if w is None else p_ggx * w)
            if ggw is not None:
                parts.append(ggw * xhat)
            if ggb is not None:
                parts.append(ggb.expand(x.shape) if ggb.dim() < x.dim() else ggb)
            for part in parts:
                dg = part if dg is None else dg + part
        if need_w and p_ggx is not None:
            dw = batch_sum(g * p_ggx)
        if need_x:
            gh = g if w is None else g * w
            r2 = r * r
            if ggx is not None:
                m = mean(gh * xhat)
                centred = gh - mean(gh) - xhat * m
                dx = -r2 * (mean(ggx * centred) * xhat + m * project(ggx))
                dx = dx - r2 * mean(ggx * xhat) * project(gh)
            if ggw is not None:
                term = project(g * ggw) * r
                dx = term if dx is None else dx + term
        return dg, dx, None, None, dw, None


def _layer_norm_grads(g, x, w, mean, rstd, k: int, needs):
    """layer_norm's three gradients (input, weight, bias) from the incoming gradient."""
    norm_axes = tuple(range(x.dim() - k, x.dim()))
    batch_axes = tuple(range(x.dim() - k))
    need_x, need_w, need_b = needs
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
        node.bias = bias  # for the bias edge of a double-backward node (no value needed)
        node.save("mean", wrap(as_array(mean), x._dtype))
        node.save("rstd", wrap(as_array(rstd), x._dtype))
        record(node, (x, weight, bias), res)
    return res
