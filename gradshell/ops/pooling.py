"""2-D pooling: `F.max_pool2d` (node `MaxPool2DWithIndicesBackward0`, indices on request)
and `F.avg_pool2d` (node `AvgPool2DBackward0`), with kernel, stride, padding, dilation
(max only), ceil_mode, count_include_pad and divisor_override as PyTorch has them.

Windows are strided views of the padded input; a window's maximum is the first largest
element, or its last NaN (PyTorch's `val > max || isnan(val)` scan); averages add the
taps in row-major order before one division, as PyTorch's CPU kernel does.
"""

from __future__ import annotations

import numpy as np

from gradshell.core import grad_mode
from gradshell.ops.base import (
    BOOL,
    FLOAT,
    Node,
    Tensor,
    array_module,
    as_array,
    needs_grad,
    record,
    wrap,
)
from gradshell.ops.conv import pair, scatter_windows, windows
from gradshell.ops.explanation import (
    BACKWARD_OF_BACKWARD,
    Ctx,
    Formula,
    Local,
)

__all__ = ["adaptive_avg_pool2d", "avg_pool2d", "max_pool2d", "max_pool2d_with_indices"]


def _pool_size(size: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    """PyTorch's pooling_output_shape: floor or ceil division, and with ceil_mode the last
    window must start inside the input or its left padding."""
    span = size + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil else 0)) // s + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


def _params(name: str, kernel_size, stride, padding, dilation):
    k = pair(kernel_size, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else pair(stride)
    p = pair(padding, "padding")
    d = pair(dilation, "dilation")
    if any(v <= 0 for v in k):
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}"
        )
    if any(v <= 0 for v in s):
        raise RuntimeError(f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    if any(v <= 0 for v in d):
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationH: {d[0]} dilationW: {d[1]}"
        )
    for i in range(2):
        if p[i] < 0 or p[i] > (d[i] * (k[i] - 1) + 1) // 2:
            if name == "avg_pool2d":
                raise RuntimeError(
                    f"pad should be at most half of effective kernel size, but got pad={p[i]}, "
                    f"kernel_size={k[i]} and dilation=1"
                )
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p[i]}, "
                f"kernel_size={k[i]} and dilation={d[i]}"
            )
    return k, s, p, d


def _input4d(x, name: str) -> tuple[Tensor, bool]:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
        )
    nd = x._data.ndim
    if nd not in (3, 4) or any(s == 0 for s in x._data.shape[-3 + (nd == 4) :]):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    return x, nd == 3


def _geometry(x4: tuple, k, s, p, d, ceil: bool):
    """(Ho, Wo) and the (top, bottom, left, right) padding that holds every window."""
    h, w = x4[2], x4[3]
    ho = _pool_size(h, k[0], s[0], p[0], d[0], ceil)
    wo = _pool_size(w, k[1], s[1], p[1], d[1], ceil)
    if ho < 1 or wo < 1:
        raise RuntimeError(
            f"Given input size: ({x4[1]}x{h}x{w}). Calculated output size: ({x4[1]}x{ho}x{wo}). "
            "Output size is too small"
        )
    need_h = (ho - 1) * s[0] + d[0] * (k[0] - 1) + 1
    need_w = (wo - 1) * s[1] + d[1] * (k[1] - 1) + 1
    bottom = max(0, need_h - h - p[0])
    right = max(0, need_w - w - p[1])
    return (ho, wo), (p[0], bottom, p[1], right)


def _padded(xp, data, pads, value):
    top, bottom, left, right = pads
    if not any(pads):
        return data
    return xp.pad(data, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=value)


# -- max pooling ---------------------------------------------------------------------------------
def _max_forward(xp, data, k, s, p, d, ceil: bool):
    """(values, flat indices into each H*W plane) of max pooling on (N, C, H, W) data."""
    n, c, h, w = data.shape
    out, pads = _geometry(data.shape, k, s, p, d, ceil)
    lowest = -xp.inf if data.dtype.kind == "f" else xp.iinfo(data.dtype).min
    padded = _padded(xp, data, pads, lowest)
    win = windows(xp, padded, k, s, d, out).reshape(n, c, out[0], out[1], k[0] * k[1])
    # where each tap of each window reads from (-1 for padding)
    pos = xp.arange(h * w, dtype=xp.int64).reshape(1, 1, h, w)
    pos = _padded(xp, pos, pads, -1)
    pwin = windows(xp, pos, k, s, d, out).reshape(1, 1, out[0], out[1], k[0] * k[1])
    valid = pwin >= 0
    if data.dtype.kind == "f":
        nan = xp.isnan(win)
        best = xp.where(valid, win, -xp.inf).max(axis=-1, keepdims=True)
        hit = (win == best) & valid
        first = xp.argmax(hit, axis=-1)
        kk = win.shape[-1]
        last_nan = kk - 1 - xp.argmax(nan[..., ::-1], axis=-1)
        tap = xp.where(nan.any(axis=-1), last_nan, first)
    else:
        best = xp.where(valid, win, lowest).max(axis=-1, keepdims=True)
        tap = xp.argmax((win == best) & valid, axis=-1)
    vals = xp.take_along_axis(win, tap[..., None], axis=-1)[..., 0]
    idx = xp.take_along_axis(xp.broadcast_to(pwin, win.shape), tap[..., None], axis=-1)[..., 0]
    return xp.ascontiguousarray(vals), xp.ascontiguousarray(idx)


def _scatter_to_indices(xp, g, idx, in_shape):
    """Add g (N, C, Ho, Wo) into zeros of in_shape at the flat plane positions idx."""
    n, c, h, w = in_shape
    out = xp.zeros((n * c, h * w), g.dtype)
    rows = xp.broadcast_to(xp.arange(n * c).reshape(-1, 1), (n * c, idx[0, 0].size))
    xp.add.at(out, (rows.reshape(-1), idx.reshape(-1)), g.reshape(-1))
    return out.reshape(in_shape)


class MaxPool2DWithIndicesBackward0(Node):
    """d max_pool2d: each output's gradient goes to the input element it took."""

    @property
    def double_backward(self) -> type:
        """The node its own backward records under create_graph."""
        return MaxPool2DWithIndicesBackwardBackward0

    def backward(self, g):
        x = self.saved("self")
        idx = self.saved("result1")
        xp = array_module(g._data)
        gd, id4 = g._data, idx._data
        shape = x._data.shape
        if len(shape) == 3:  # an unbatched (C, H, W) input
            gd, id4, shape = gd[None], id4[None], (1,) + shape
        r = _scatter_to_indices(xp, gd, id4, shape)
        gx = wrap(as_array(r.reshape(x._data.shape)), x._dtype)
        if needs_grad(g, x):  # create_graph: PyTorch's node, with edges to g and self
            node = self.double_backward()
            node.save("indices", idx)
            node.self_meta = (x._data.shape, x._dtype)
            record(node, (g, x), gx)
        return (gx,)

    def explain(self, c: Ctx) -> Formula:
        x = c.saved("self")
        where = c.saved("result1").astype(np.int64)
        shape = x.shape

        def apply(g: np.ndarray) -> np.ndarray:
            planes = int(np.prod(shape[:-2]))
            out = np.zeros((planes, shape[-2] * shape[-1]), dtype=np.float64)
            rows = np.repeat(np.arange(planes), where[..., :, :].size // max(planes, 1))
            np.add.at(out, (rows, where.reshape(-1)), g.reshape(-1))
            return out.reshape(shape)

        rhs = "grad sent to the element each window took (0 elsewhere)"
        return Formula(f"max_pool2d({c.sym(0)})", [Local(rhs, kind="map", apply=apply)])


class MaxPool2DWithIndicesBackwardBackward0(Node):
    """The backward of max pooling's backward: gather the gradient at the indices."""

    def backward(self, gg):
        idx = self.saved("indices")._data
        xp = array_module(gg._data)
        planes = idx.size // max(1, idx.shape[-1] * idx.shape[-2])
        flat = gg._data.reshape(planes, -1)
        r = xp.take_along_axis(flat, idx.reshape(planes, -1), axis=1)
        dg = wrap(as_array(r.reshape(idx.shape)), gg._dtype)
        return dg, _zeros(xp, *self.self_meta)

    no_explanation = BACKWARD_OF_BACKWARD


def _zeros(xp, shape, dtype) -> Tensor:
    """The gradient PyTorch gives `self` through a pooling backward: zeros_like(self)."""
    return wrap(xp.zeros(shape, dtype.np), dtype)


def max_pool2d_with_indices(
    input: Tensor,  # noqa: A002 - PyTorch's name
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = True,
) -> tuple[Tensor, Tensor]:
    """Max pooling that also returns the flat (per-plane) index of each maximum."""
    x, unbatched = _input4d(input, "max_pool2d")
    k, s, p, d = _params("max_pool2d", kernel_size, stride, padding, dilation)
    if x._dtype.category == BOOL:
        raise RuntimeError("\"max_pool2d\" not implemented for 'Bool'")
    data = x._data[None] if unbatched else x._data
    xp = array_module(data)
    vals, idx = _max_forward(xp, data, k, s, p, d, bool(ceil_mode))
    if unbatched:
        vals, idx = vals[0], idx[0]
    from gradshell.core import dtypes

    res = wrap(as_array(vals), x._dtype)
    indices = wrap(as_array(idx), dtypes.int64)
    if needs_grad(x):
        node = MaxPool2DWithIndicesBackward0()
        node.save("self", x)
        node.save("result1", indices)
        record(node, (x,), res)
    return res, indices


def max_pool2d(
    input: Tensor,  # noqa: A002 - PyTorch's name
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """The maximum of each kernel window (with return_indices, also where it was)."""
    res, idx = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (res, idx) if return_indices else res


# -- average pooling -----------------------------------------------------------------------------
def _divisors(xp, in_hw, out, k, s, p, include_pad: bool, override):
    """The divisor of each output position (Ho, Wo), as PyTorch's avg_pool2d counts it."""
    if override is not None:
        return None
    h, w = in_hw
    div = []
    for size, n, kk, ss, pp in ((h, out[0], k[0], s[0], p[0]), (w, out[1], k[1], s[1], p[1])):
        start = xp.arange(n) * ss - pp
        end = xp.minimum(start + kk, size + pp)
        pool = end - start
        cs, ce = xp.maximum(start, 0), xp.minimum(end, size)
        div.append((pool, ce - cs))
    (ph, vh), (pw, vw) = div
    if include_pad:
        return ph[:, None] * pw[None, :]
    return vh[:, None] * vw[None, :]


def _avg_forward(xp, data, k, s, p, ceil: bool, include_pad: bool, override):
    n, c, h, w = data.shape
    out, pads = _geometry(data.shape, k, s, p, (1, 1), ceil)
    padded = _padded(xp, data, pads, 0)
    win = windows(xp, padded, k, s, (1, 1), out)
    acc_dtype = data.dtype
    total = xp.zeros((n, c) + out, acc_dtype)
    for i in range(k[0]):  # the taps in row-major order, as the CPU kernel adds them
        for j in range(k[1]):
            total += win[:, :, :, :, i, j]
    div = _divisors(xp, (h, w), out, k, s, p, include_pad, override)
    if data.dtype.kind == "f":
        d = data.dtype.type(override) if override is not None else div.astype(data.dtype)
        r = total / d
    else:  # integer division truncates toward zero, as C++ does
        d = override if override is not None else div
        r = xp.sign(total) * (xp.abs(total) // d)
    return r.astype(data.dtype, copy=False), div, out, pads


class AvgPool2DBackward0(Node):
    """d avg_pool2d: each output's gradient, divided by its divisor, spread over its window."""

    def backward(self, g):
        x = self.saved("self")  # (saved as PyTorch saves it: a second backward fails)
        x_shape = self.input_shape
        xp = array_module(g._data)
        gd = g._data[None] if self.unbatched else g._data
        k, s = self.k, self.s
        if self.override is not None:
            per = gd / gd.dtype.type(self.override)
        else:
            per = gd / self.div.astype(gd.dtype)
        ho, wo = gd.shape[2:]
        n, c, h, w = x_shape
        gwin = xp.broadcast_to(per[..., None, None], (n, c, ho, wo, k[0], k[1]))
        top, bottom, left, right = self.pads
        gx = scatter_windows(xp, gwin, (n, c, h + top + bottom, w + left + right), s, (1, 1))
        gx = gx[:, :, top : top + h, left : left + w]
        if self.unbatched:
            gx = gx[0]
        res = wrap(as_array(xp.ascontiguousarray(gx)), g._dtype)
        if grad_mode.state.enabled and (g._requires_grad or self.next_functions[0][0]):
            node = AvgPool2DBackwardBackward0()
            node.forward_args = self.forward_args
            node.self_meta = (x_shape if not self.unbatched else x_shape[1:], g._dtype)
            record(node, (g, x), res)
        return (res,)

    no_explanation = "its local derivative spreads each window's gradient back: no one-line formula"


class AvgPool2DBackwardBackward0(Node):
    """The backward of avg_pool2d's backward is avg_pool2d itself (it is linear)."""

    def backward(self, gg):
        xp = array_module(gg._data)
        return avg_pool2d(gg, *self.forward_args), _zeros(xp, *self.self_meta)

    no_explanation = BACKWARD_OF_BACKWARD


def avg_pool2d(
    input: Tensor,  # noqa: A002 - PyTorch's name
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override=None,
) -> Tensor:
    """The mean of each kernel window."""
    x, unbatched = _input4d(input, "avg_pool2d")
    k, s, p, _ = _params("avg_pool2d", kernel_size, stride, padding, 1)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if x._dtype.category == BOOL:
        raise RuntimeError("\"avg_pool2d\" not implemented for 'Bool'")
    data = x._data[None] if unbatched else x._data
    xp = array_module(data)
    r, div, out, pads = _avg_forward(
        xp, data, k, s, p, bool(ceil_mode), bool(count_include_pad), divisor_override
    )
    if unbatched:
        r = r[0]
    res = wrap(as_array(xp.ascontiguousarray(r)), x._dtype)
    if needs_grad(x) and x._dtype.category == FLOAT:
        node = AvgPool2DBackward0()
        node.input_shape = data.shape
        node.save("self", x)
        node.unbatched = unbatched
        node.k, node.s, node.p, node.pads, node.div = k, s, p, pads, div
        node.override = divisor_override
        node.forward_args = (kernel_size, stride, padding, ceil_mode, count_include_pad)
        node.forward_args += (divisor_override,)
        record(node, (x,), res)
    return res


# -- adaptive average pooling ----------------------------------------------------------------
def _adaptive_bounds(size: int, out: int) -> list[tuple[int, int]]:
    """PyTorch's windows: [floor(i·size/out), ceil((i+1)·size/out)) for each output i."""
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def _adaptive_sizes(output_size, shape: tuple) -> tuple[int, int]:
    if isinstance(output_size, (list, tuple)):
        oh, ow = (output_size[0], output_size[0]) if len(output_size) == 1 else output_size
    else:
        oh = ow = output_size
    return (shape[-2] if oh is None else int(oh)), (shape[-1] if ow is None else int(ow))


def _adaptive_forward(xp, data, out: tuple):
    n, c, h, w = data.shape
    rows, cols = _adaptive_bounds(h, out[0]), _adaptive_bounds(w, out[1])
    res = xp.empty((n, c) + out, data.dtype)
    for i, (hs, he) in enumerate(rows):
        for j, (ws, we) in enumerate(cols):
            total = xp.zeros((n, c), data.dtype)
            for r in range(hs, he):  # row-major, as the CPU kernel adds
                for q in range(ws, we):
                    total += data[:, :, r, q]
            res[:, :, i, j] = total / data.dtype.type(he - hs) / data.dtype.type(we - ws)
    return res


class AdaptiveAvgPool2DBackward0(Node):
    """d adaptive_avg_pool2d: each output's gradient / its window size, over its window."""

    def backward(self, g):
        x = self.saved("self")
        xp = array_module(g._data)
        gd = g._data[None] if x._data.ndim == 3 else g._data
        shape = (1,) + x._data.shape if x._data.ndim == 3 else x._data.shape
        n, c, h, w = shape
        gx = xp.zeros(shape, gd.dtype)
        t = gd.dtype.type
        for i, (hs, he) in enumerate(_adaptive_bounds(h, gd.shape[2])):
            for j, (ws, we) in enumerate(_adaptive_bounds(w, gd.shape[3])):
                share = gd[:, :, i, j] / t(he - hs) / t(we - ws)
                gx[:, :, hs:he, ws:we] += share[:, :, None, None]
        res = wrap(as_array(gx.reshape(x._data.shape)), g._dtype)
        if needs_grad(g, x):  # create_graph: PyTorch's node, with edges to g and self
            node = AdaptiveAvgPool2DBackwardBackward0()
            node.output_size = tuple(g._data.shape[-2:])
            node.self_meta = (x._data.shape, x._dtype)
            record(node, (g, x), res)
        return (res,)

    no_explanation = "its local derivative spreads each window's gradient back: no one-line formula"


class AdaptiveAvgPool2DBackwardBackward0(Node):
    """The backward of adaptive_avg_pool2d's backward is adaptive_avg_pool2d (linear)."""

    def backward(self, gg):
        xp = array_module(gg._data)
        return adaptive_avg_pool2d(gg, self.output_size), _zeros(xp, *self.self_meta)

    no_explanation = BACKWARD_OF_BACKWARD


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:  # noqa: A002 - PyTorch's name
    """Average pooling to a fixed output size (windows chosen to cover the input evenly);
    an output of 1x1 is the mean over the last two dimensions, as PyTorch computes it."""
    x = input
    if not isinstance(x, Tensor):
        raise TypeError(
            "adaptive_avg_pool2d(): argument 'input' (position 1) must be Tensor, not "
            f"{type(x).__name__}"
        )
    if x._data.ndim not in (3, 4):
        raise RuntimeError(
            "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
            f"[{', '.join(str(s) for s in x._data.shape)}]"
        )
    out = _adaptive_sizes(output_size, x._data.shape)
    if out == (1, 1):
        return x.mean((-1, -2), keepdim=True)
    if x._dtype.category != FLOAT:
        raise NotImplementedError(
            f"\"adaptive_avg_pool2d\" not implemented for '{x._dtype.scalar_name}'"
        )
    data = x._data[None] if x._data.ndim == 3 else x._data
    xp = array_module(data)
    r = _adaptive_forward(xp, data, out)
    res = wrap(as_array(r.reshape(x._data.shape[:-2] + out)), x._dtype)
    if needs_grad(x):
        node = AdaptiveAvgPool2DBackward0()
        node.save("self", x)
        record(node, (x,), res)
    return res
