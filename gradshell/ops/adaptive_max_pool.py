"""Adaptive max pooling (`F.adaptive_max_pool2d`, node `AdaptiveMaxPool2DBackward0`):
max pooling to a fixed output size, each output's window
[floor(i·size/out), ceil((i+1)·size/out)) in both dimensions, with the flat (per-plane)
index of each maximum. A window's maximum is its first largest element, or its last NaN,
as PyTorch's CPU kernel scans (`val > max || isnan(val)`).
"""

from __future__ import annotations

from gradshell.core import dtypes
from gradshell.ops.base import (
    FLOAT,
    Tensor,
    array_module,
    as_array,
    needs_grad,
    record,
    wrap,
)
from gradshell.ops.explanation import Ctx, Formula, Local
from gradshell.ops.pooling import (
    MaxPool2DWithIndicesBackward0,
    MaxPool2DWithIndicesBackwardBackward0,
    _adaptive_bounds,
    _scatter_to_indices,
)

__all__ = ["adaptive_max_pool2d", "adaptive_max_pool_forward"]


def _window_max(xp, win):
    """(values, flat tap) of the maximum of each row of win (..., taps): the first largest,
    or the last NaN."""
    if win.dtype.kind == "f":
        nan = xp.isnan(win)
        first = xp.argmax(win == win.max(axis=-1, keepdims=True), axis=-1)
        last_nan = win.shape[-1] - 1 - xp.argmax(nan[..., ::-1], axis=-1)
        tap = xp.where(nan.any(axis=-1), last_nan, first)
    else:
        tap = xp.argmax(win, axis=-1)
    vals = xp.take_along_axis(win, tap[..., None], axis=-1)[..., 0]
    return vals, tap


def adaptive_max_pool_forward(xp, data, out: tuple):
    """(values, flat plane indices) of adaptive max pooling of (N, C, H, W) data."""
    n, c, h, w = data.shape
    vals = xp.empty((n, c) + out, data.dtype)
    idx = xp.empty((n, c) + out, xp.int64)
    for i, (hs, he) in enumerate(_adaptive_bounds(h, out[0])):
        for j, (ws, we) in enumerate(_adaptive_bounds(w, out[1])):
            win = data[:, :, hs:he, ws:we].reshape(n, c, -1)
            v, tap = _window_max(xp, win)
            width = we - ws
            vals[:, :, i, j] = v
            idx[:, :, i, j] = (hs + tap // width) * w + ws + tap % width
    return vals, idx


class AdaptiveMaxPool2DBackward0(MaxPool2DWithIndicesBackward0):
    """d adaptive_max_pool2d: each output's gradient goes to the input element it took
    (max pooling's backward, recording adaptive pooling's node under create_graph)."""

    @property
    def double_backward(self) -> type:
        """The node its own backward records under create_graph."""
        return AdaptiveMaxPool2DBackwardBackward0

    def explain(self, c: Ctx) -> Formula:
        shape = c.saved("self").shape
        where = c.saved("result1").astype("int64")

        def apply(g):
            xp = array_module(g)
            if len(shape) == 3:
                return _scatter_to_indices(xp, g[None], where[None], (1,) + tuple(shape))[0]
            return _scatter_to_indices(xp, g, where, tuple(shape))

        rhs = "grad sent to the element each window took (0 elsewhere)"
        return Formula(f"adaptive_max_pool2d({c.sym(0)})", [Local(rhs, kind="map", apply=apply)])


class AdaptiveMaxPool2DBackwardBackward0(MaxPool2DWithIndicesBackwardBackward0):
    """The backward of adaptive max pooling's backward: gather the gradient at the indices
    (max pooling's, under adaptive pooling's name)."""

    no_explanation = MaxPool2DWithIndicesBackwardBackward0.no_explanation


def _output_size(output_size, shape: tuple) -> tuple[int, int]:
    if isinstance(output_size, (list, tuple)):
        if len(output_size) == 1:
            oh = ow = output_size[0]
        elif len(output_size) == 2:
            oh, ow = output_size
        else:
            raise RuntimeError(
                "adaptive_max_pool2d(): internal error: output_size.size() must be 2"
            )
    else:
        oh = ow = output_size
    return (shape[-2] if oh is None else int(oh)), (shape[-1] if ow is None else int(ow))


def adaptive_max_pool2d(
    input: Tensor,  # noqa: A002 - PyTorch's name
    output_size,
    return_indices: bool = False,
):
    """Max pooling to a fixed output size (an int, a pair, None keeps that size); with
    return_indices, also where each maximum was (flat index in its plane)."""
    x = input
    if not isinstance(x, Tensor):
        raise TypeError(
            "adaptive_max_pool2d(): argument 'input' (position 1) must be Tensor, not "
            f"{type(x).__name__}"
        )
    shape = x._data.shape
    if len(shape) not in (3, 4):
        raise RuntimeError(
            f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
            f"[{', '.join(str(s) for s in shape)}]"
        )
    for d in range(len(shape) - 3 + 1, len(shape)):
        if shape[d] == 0:
            raise RuntimeError(
                "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes [{', '.join(str(s) for s in shape)}] with "
                f"dimension {d} being empty"
            )
    if x._dtype.category != FLOAT:
        raise NotImplementedError(
            f"\"adaptive_max_pool2d\" not implemented for '{x._dtype.scalar_name}'"
        )
    out = _output_size(output_size, shape)
    data = x._data[None] if len(shape) == 3 else x._data
    xp = array_module(data)
    vals, idx = adaptive_max_pool_forward(xp, data, out)
    if len(shape) == 3:
        vals, idx = vals[0], idx[0]
    res = wrap(as_array(vals), x._dtype)
    indices = wrap(as_array(idx), dtypes.int64)
    if needs_grad(x):
        node = AdaptiveMaxPool2DBackward0()
        node.save("self", x)
        node.save("result1", indices)
        record(node, (x,), res)
    return (res, indices) if return_indices else res
