"""Transposed convolution (`F.conv_transpose1d` and `F.conv_transpose2d`, behind
`nn.ConvTranspose1d/2d`): stride, padding, output_padding, groups, dilation and bias, with
PyTorch's node `ConvolutionBackward0` (and `ConvolutionBackwardBackward0` under
create_graph=True).

A transposed convolution is the input gradient of the convolution with the same weight
(in_channels, out_channels/groups, k...): every input position scatters its value times
the kernel onto the output, which is then cropped by `padding` on both sides, with
`output_padding` extra rows/columns kept at the end. The gradients are those of
`ops.conv` read the other way round (∂x is a convolution of the output gradient).
"""

from __future__ import annotations

from gradshell.ops.base import (
    BOOL,
    Tensor,
    array_module,
)
from gradshell.ops.conv import (
    _conv_input_grad,
    _ConvParams,
    _geo,
    _lift,
    _shape_text,
    _single,
    check_arguments,
    finish_convolution,
    pair,
)

__all__ = ["conv_transpose1d", "conv_transpose2d", "transposed_output_size"]


def transposed_output_size(size: int, k: int, s: int, p: int, d: int, op: int) -> int:
    """(size - 1)·stride - 2·padding + dilation·(kernel - 1) + output_padding + 1."""
    return (size - 1) * s - 2 * p + d * (k - 1) + op + 1


def _args(nd: int, stride, padding, output_padding, dilation) -> tuple:
    """(stride, padding, output_padding, dilation) as pairs (1-d: a leading 1 or 0)."""
    name = f"conv_transpose{nd}d"
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    if nd == 1:
        return (
            (1, _single(stride, "stride")),
            (0, _single(padding, "padding")),
            (0, _single(output_padding, "output_padding")),
            (1, _single(dilation, "dilation")),
        )
    return (
        pair(stride, "stride"),
        pair(padding, "padding"),
        pair(output_padding, "output_padding"),
        pair(dilation, "dilation"),
    )


def _check_shapes(xs: tuple, w: Tensor, b, args: tuple, groups: int, nd: int) -> tuple:
    """PyTorch's shape errors for a batched input of shape xs; the output's spatial size."""
    stride, pad, opad, dil = args
    ws = w._data.shape
    if len(ws) != nd + 2:
        raise RuntimeError(
            "weight should have at least three dimensions"
            if len(ws) < 3
            else f"Expected {len(ws)}-dimensional input for {len(ws)}-dimensional weight "
            f"{_shape_text(ws)}, but got {len(xs)}-dimensional input of size "
            f"{_shape_text(xs)} instead"
        )
    if ws[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{_shape_text(ws)}] instead"
        )
    if xs[1] != ws[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {_shape_text(ws)}, expected input"
            f"{_shape_text(xs)} to have {ws[0]} channels, but got {xs[1]} channels instead"
        )
    if b is not None and (b._data.ndim != 1 or b._data.shape[0] != ws[1] * groups):
        raise RuntimeError(
            f"Given transposed=1, weight of size {_shape_text(ws)}, expected bias to be "
            f"1-dimensional with {ws[1] * groups} elements, but got bias of size "
            f"{_shape_text(b._data.shape)} instead"
        )
    # (1-d runs as height 1, and PyTorch's messages show that height too)
    if any(o >= s and o >= d for o, s, d in zip(opad, stride, dil, strict=True)):
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            f"output_padding_height: {opad[0]} output_padding_width: {opad[1]} "
            f"stride_height: {stride[0]} stride_width: {stride[1]} "
            f"dilation_height: {dil[0]} dilation_width: {dil[1]}"
        )
    kernel = ((1,) + tuple(ws[2:])) if nd == 1 else tuple(ws[2:])
    spatial = ((1,) + tuple(xs[2:])) if nd == 1 else tuple(xs[2:])
    out = tuple(
        transposed_output_size(n, k, s, p, d, o)
        for n, k, s, p, d, o in zip(spatial, kernel, stride, pad, dil, opad, strict=True)
    )
    if any(o < 1 for o in out):
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, spatial))}). Calculated "
            f"output size per channel: ({' x '.join(map(str, out))}). Output size is "
            "too small"
        )
    return out


def _check_dtypes(x: Tensor, w: Tensor, b) -> None:
    if b is not None and b._dtype is not x._dtype:
        raise RuntimeError(
            f"Input type ({x._dtype.cpp_name}) and bias type ({b._dtype.cpp_name}) should be "
            "the same"
        )
    if x._dtype is not w._dtype:
        raise RuntimeError(
            f"expected scalar type {x._dtype.scalar_name} but found {w._dtype.scalar_name}"
        )
    if x._dtype.category == BOOL:
        raise NotImplementedError("\"slow_conv_transpose2d_out_cpu\" not implemented for 'Bool'")


def _conv_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation, nd):
    """conv_transpose1d/2d: 1-d runs as images of height 1."""
    args = _args(nd, stride, padding, output_padding, dilation)
    stride, pad, opad, dil = args
    check_arguments(x, weight, bias, stride, pad, dil, groups, nd, output_padding=opad)
    unbatched = x._data.ndim == nd + 1
    if unbatched:
        x = x.unsqueeze(0)
    out = _check_shapes(x._data.shape, weight, bias, args, groups, nd)
    _check_dtypes(x, weight, bias)
    stride_p, pad, _, dil = args
    pads = (pad[0], pad[0], pad[1], pad[1])
    p = _ConvParams(pads, stride_p, dil, groups, nd, transposed=True)
    xp = array_module(x._data)
    xd, wd = _lift(x._data, p), _lift(weight._data, p)
    out_shape = (xd.shape[0], wd.shape[1] * groups) + out
    r = _conv_input_grad(xp, xd, wd, out_shape, *_geo(p))
    if bias is not None:
        r = r + bias._data.reshape(1, -1, 1, 1)
    return finish_convolution(xp, r, x, weight, bias, p, unbatched)


def conv_transpose2d(
    input: Tensor,  # noqa: A002 - PyTorch's name
    weight: Tensor,
    bias: Tensor | None = None,
    stride=1,
    padding=0,
    output_padding=0,
    groups: int = 1,
    dilation=1,
) -> Tensor:
    """The 2-D transposed convolution of input (N, C, H, W) or (C, H, W) with weight
    (C, O/groups, kh, kw), plus bias (O,)."""
    return _conv_transpose(
        input, weight, bias, stride, padding, output_padding, groups, dilation, 2
    )


def conv_transpose1d(
    input: Tensor,  # noqa: A002 - PyTorch's name
    weight: Tensor,
    bias: Tensor | None = None,
    stride=1,
    padding=0,
    output_padding=0,
    groups: int = 1,
    dilation=1,
) -> Tensor:
    """The 1-D transposed convolution of input (N, C, L) or (C, L) with weight
    (C, O/groups, k), plus bias (O,)."""
    return _conv_transpose(
        input, weight, bias, stride, padding, output_padding, groups, dilation, 1
    )
