"""`F.max_unpool2d`, the partial inverse of max_pool2d: each value is put back at the
flat (per-plane) position its index names, zeros elsewhere, with PyTorch's node
`MaxUnpool2DBackward0` (its backward gathers the gradient at the same indices)."""

from __future__ import annotations

import numpy as np

from gradshell.core import dtypes
from gradshell.ops.base import (
    Node,
    Tensor,
    array_module,
    as_array,
    needs_grad,
    record,
    wrap,
)
from gradshell.ops.conv import pair
from gradshell.ops.explanation import Ctx, Formula, Local

__all__ = ["max_unpool2d"]


class MaxUnpool2DBackward0(Node):
    """d max_unpool2d: each input's gradient is the output gradient at its index."""

    def backward(self, g):
        idx = self.saved("indices")
        flat_g = g.reshape(*g.shape[:-2], -1)
        flat_i = idx.reshape(*idx.shape[:-2], -1)
        return (flat_g.gather(-1, flat_i).view(tuple(idx.shape)),)

    def explain(self, c: Ctx) -> Formula:
        where = c.saved("indices").astype("int64")

        def apply(g):
            flat = g.reshape(g.shape[:-2] + (-1,))
            rows = where.reshape(where.shape[:-2] + (-1,))
            return np.take_along_axis(flat, rows, axis=-1).reshape(where.shape)

        return Formula(
            f"max_unpool2d({c.sym(0)})",
            [Local("grad at the position each value was put", kind="map", apply=apply)],
        )


def _default_size(in_size: int, k: int, s: int, p: int) -> int:
    return (in_size - 1) * s - 2 * p + k


def _output_size(shape: tuple, k, s, p, output_size) -> tuple[int, int]:
    """The output's (H, W): the pooling's input size by default, or output_size checked
    against the sizes that pooling could have come from."""
    default = [_default_size(shape[-2 + d], k[d], s[d], p[d]) for d in range(2)]
    if output_size is None:
        return default[0], default[1]
    size = list(output_size)
    if len(size) == 4:
        size = size[2:]
    if len(size) != 2:
        raise ValueError(
            "output_size should be a sequence containing 2 or 4 elements, but it has a "
            f"length of '{len(size)}'"
        )
    for d in range(2):
        low, high = default[d] - s[d], default[d] + s[d]
        if not low < size[d] < high:
            raise ValueError(
                f'invalid output_size "{output_size}" (dim {d} must be between {low} and {high})'
            )
    return int(size[0]), int(size[1])


def max_unpool2d(
    input: Tensor,  # noqa: A002 - PyTorch's name
    indices: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    output_size=None,
) -> Tensor:
    """Put each value of input (N, C, h, w) at its flat index in a zero (N, C, H, W)."""
    x = input
    k = pair(kernel_size, "kernel_size")
    s = k if stride is None else pair(stride, "stride")
    p = pair(padding, "padding")
    ho, wo = _output_size(tuple(x.shape), k, s, p, output_size)
    if indices._dtype is not dtypes.int64:
        raise RuntimeError(
            f"elements in indices should be type int64 but got: {indices._dtype.scalar_name}"
        )
    if x._data.ndim not in (3, 4):
        raise RuntimeError(
            "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with "
            f"{x._data.ndim} dimensions."
        )
    if indices._data.shape != x._data.shape:
        raise RuntimeError(
            "Expected shape of indices to be same as that of the input tensor "
            f"([{', '.join(map(str, x._data.shape))}]) but got indices tensor with shape: "
            f"[{', '.join(map(str, indices._data.shape))}]"
        )
    xp = array_module(x._data)
    planes = x._data.shape[:-2]
    flat_x = x._data.reshape(-1, x._data.shape[-2] * x._data.shape[-1])
    flat_i = indices._data.reshape(flat_x.shape)
    bad = (flat_i < 0) | (flat_i >= ho * wo)
    if bad.any():
        # PyTorch's CPU kernel names the last bad index of a plane (which plane, when several
        # have one, depends on its threads): here the first such plane
        plane = int(xp.argmax(bad.any(axis=1)))
        shown = int(flat_i[plane][bad[plane]][-1])
        raise RuntimeError(
            f"Found an invalid max index: {shown} (output volumes are of size {ho}x{wo})"
        )
    out = xp.zeros((flat_x.shape[0], ho * wo), x._data.dtype)
    rows = xp.arange(flat_x.shape[0])[:, None]
    out[rows, flat_i] = flat_x  # (a repeated index keeps the last value written)
    res = wrap(as_array(out.reshape(planes + (ho, wo))), x._dtype)
    if needs_grad(x):
        node = MaxUnpool2DBackward0()
        node.save("indices", indices)
        record(node, (x,), res)
    return res
