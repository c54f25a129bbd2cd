"""torch.nn.functional.interpolate: resizing the spatial dimensions of (N, C, ...) input
by nearest neighbours ('nearest', 'nearest-exact') or by linear interpolation along each
spatial dimension ('linear', 'bilinear', 'trilinear', with or without align_corners), or
by averaging ('area' of images, which is adaptive average pooling), with PyTorch's nodes (UpsampleNearest2DBackward0, UpsampleBilinear2DBackward0, ...) and
its errors.

Each spatial dimension is resized on its own: every output position reads one input
position (nearest) or blends two neighbours with weights λ0 + λ1 = 1 (linear). The
positions and weights follow PyTorch's rules, computed in the same precision (float32 for
float32 and float16 input): with a scale factor s given, an output position o maps to
o / s (nearest) or (o + ½) / s − ½ (linear, clamped at 0); without it, in/out replaces 1/s;
with align_corners the corners match: o · (in − 1)/(out − 1). The backward adds each
output's gradient, times its weight, to the input positions it read.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

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
from gradshell.ops.explanation import BACKWARD_OF_BACKWARD, Ctx, Formula, Local
from gradshell.ops.fused import FusedBackward, fused
from gradshell.ops.pooling import adaptive_avg_pool2d

__all__ = ["interpolate", "upsample", "upsample_bilinear", "upsample_nearest"]

_LINEAR = {1: "linear", 2: "bilinear", 3: "trilinear"}
_ALL_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _acc(dtype: np.dtype) -> type:
    """The type PyTorch computes positions and weights in."""
    return np.float64 if dtype == np.float64 else np.float32


def _inverse_scale(acc, in_size: int, out_size: int, scale) -> object:
    """1/scale when a positive scale factor was given, else in/out, in `acc`."""
    if scale is not None and scale > 0:
        return acc(1.0 / scale)
    return acc(in_size) / acc(out_size)


def _axis_plan(acc, mode: str, in_size: int, out_size: int, scale, align_corners):
    """(indices, weights) for one dimension: each output reads input positions
    indices[j] with weights weights[j] (one pair for nearest, two for linear)."""
    dst = np.arange(out_size)
    if mode in ("nearest", "nearest-exact"):
        s = _inverse_scale(acc, in_size, out_size, scale)
        pos = dst.astype(acc) + acc(0.5) if mode == "nearest-exact" else dst.astype(acc)
        idx = np.minimum(np.floor(pos * s).astype(np.int64), in_size - 1)
        return [idx], [np.ones(out_size, acc)]
    if out_size == in_size:
        return [dst, dst], [np.ones(out_size, acc), np.zeros(out_size, acc)]
    if align_corners:
        s = acc(in_size - 1) / acc(out_size - 1) if out_size > 1 else acc(0)
        src = s * dst.astype(acc)
    else:
        s = _inverse_scale(acc, in_size, out_size, scale)
        src = np.maximum(s * (dst.astype(acc) + acc(0.5)) - acc(0.5), acc(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    l1 = np.clip(src - i0.astype(acc), acc(0), acc(1)).astype(acc)
    i1 = i0 + (i0 < in_size - 1)
    return [i0, i1], [(acc(1) - l1).astype(acc), l1]


def _shortcut_plan(mode: str, in_size: int, out_size: int, plan):
    """PyTorch's 'nearest' shortcut: output o reads input o when the sizes agree and o // 2
    when the output is twice the input, whatever the scale factor. Its backward always
    takes it, its forward only for images (1-d and 3-d forwards use the scale), so the
    two can disagree."""
    if mode != "nearest":
        return plan
    dst = np.arange(out_size)
    if out_size == in_size:
        return [dst], plan[1]
    if out_size == 2 * in_size:
        return [dst // 2], plan[1]
    return plan


def _resize(d, plans: list):
    """Apply each dimension's plan, the last spatial dimension first (so that the outer
    dimension's blend is the last one, as in PyTorch's kernels)."""
    k = len(plans)
    for j in reversed(range(k)):
        axis = d.ndim - k + j
        idx, wts = plans[j]
        view = (-1,) + (1,) * (k - 1 - j)
        parts = [d.take(i, axis=axis) * w.reshape(view) for i, w in zip(idx, wts, strict=True)]
        d = parts[0] if len(parts) == 1 else parts[0] + parts[1]
    return d


def _resize_back(g, in_shape: tuple, plans: list):
    """The gradient for an input of `in_shape`: each output's gradient, times its
    weights, added to the positions it read."""
    xp = array_module(g)
    k = len(plans)
    out_dtype = g.dtype
    g = g.astype(np.float32) if g.dtype == np.float16 else g  # summed in float32
    for j in range(k):
        axis = g.ndim - k + j
        idx, wts = plans[j]
        moved = xp.moveaxis(g, axis, -1)
        out = xp.zeros(moved.shape[:-1] + (in_shape[axis],), g.dtype)
        for i, w in zip(idx, wts, strict=True):
            np.add.at(out, (Ellipsis, i), moved * w.astype(g.dtype, copy=False))
        g = xp.moveaxis(out, -1, axis)
    return g.astype(out_dtype, copy=False)


class _UpsampleBackwardBackward(FusedBackward):
    """An upsampling's backward differentiated: the upsampling again (it is linear)."""

    inputs = ("grad_output",)

    def grads(self, gg, wanted, g):
        return (_upsampled(gg, self.params) if wanted[0] else None,)

    no_explanation = BACKWARD_OF_BACKWARD


class _UpsampleBackward(Node):
    """d upsample: each input position gets the gradients of the outputs that read it,
    times the weights they read it with."""

    fused_node: type[FusedBackward] = _UpsampleBackwardBackward

    def backward(self, g):
        in_shape, plans = self.in_shape, self.plans
        return (
            fused(
                self.fused_node,
                (g,),
                lambda g: wrap(as_array(_resize_back(g._data, in_shape, plans)), g._dtype),
                opmath=False,
                params=self.params,
            ),
        )

    def explain(self, c: Ctx) -> Formula:
        in_shape, plans = c.attr("in_shape"), c.attr("plans")
        return Formula(
            f"interpolate({c.sym(0)}, mode={c.attr('params')[0]!r})",
            [
                Local(
                    "the sum of the gradients of the outputs that read each element, "
                    "times the weights they read it with",
                    kind="map",
                    apply=lambda g: _resize_back(g, in_shape, plans),
                )
            ],
        )


class UpsampleNearest1DBackwardBackward0(_UpsampleBackwardBackward):
    """upsample_nearest1d_backward differentiated."""

    no_explanation = BACKWARD_OF_BACKWARD


class UpsampleNearest2DBackwardBackward0(_UpsampleBackwardBackward):
    """upsample_nearest2d_backward differentiated."""

    no_explanation = BACKWARD_OF_BACKWARD


class UpsampleNearest3DBackwardBackward0(_UpsampleBackwardBackward):
    """upsample_nearest3d_backward differentiated."""

    no_explanation = BACKWARD_OF_BACKWARD


class UpsampleNearestExact1DBackwardBackward0(_UpsampleBackwardBackward):
    """_upsample_nearest_exact1d_backward differentiated."""

    no_explanation = BACKWARD_OF_BACKWARD


class UpsampleNearestExact2DBackwardBackward0(_UpsampleBackwardBackward):
    """_upsample_nearest_exact2d_backward differentiated."""

    no_explanation = BACKWARD_OF_BACKWARD


class UpsampleNearestExact3DBackwardBackward0(_UpsampleBackwardBackward):
    """_upsample_nearest_exact3d_backward differentiated."""

    no_explanation = BACKWARD_OF_BACKWARD


class UpsampleLinear1DBackwardBackward0(_UpsampleBackwardBackward):
    """upsample_linear1d_backward differentiated."""

    no_explanation = BACKWARD_OF_BACKWARD


class UpsampleBilinear2DBackwardBackward0(_UpsampleBackwardBackward):
    """upsample_bilinear2d_backward differentiated."""

    no_explanation = BACKWARD_OF_BACKWARD


class UpsampleTrilinear3DBackwardBackward0(_UpsampleBackwardBackward):
    """upsample_trilinear3d_backward differentiated."""

    no_explanation = BACKWARD_OF_BACKWARD


class UpsampleNearest1DBackward0(_UpsampleBackward):
    """Nearest-neighbour resizing of one spatial dimension."""

    fused_node = UpsampleNearest1DBackwardBackward0
    explain = _UpsampleBackward.explain


class UpsampleNearest2DBackward0(_UpsampleBackward):
    """Nearest-neighbour resizing of two spatial dimensions."""

    fused_node = UpsampleNearest2DBackwardBackward0
    explain = _UpsampleBackward.explain


class UpsampleNearest3DBackward0(_UpsampleBackward):
    """Nearest-neighbour resizing of three spatial dimensions."""

    fused_node = UpsampleNearest3DBackwardBackward0
    explain = _UpsampleBackward.explain


class UpsampleNearestExact1DBackward0(_UpsampleBackward):
    """'nearest-exact' resizing of one spatial dimension."""

    fused_node = UpsampleNearestExact1DBackwardBackward0
    explain = _UpsampleBackward.explain


class UpsampleNearestExact2DBackward0(_UpsampleBackward):
    """'nearest-exact' resizing of two spatial dimensions."""

    fused_node = UpsampleNearestExact2DBackwardBackward0
    explain = _UpsampleBackward.explain


class UpsampleNearestExact3DBackward0(_UpsampleBackward):
    """'nearest-exact' resizing of three spatial dimensions."""

    fused_node = UpsampleNearestExact3DBackwardBackward0
    explain = _UpsampleBackward.explain


class UpsampleLinear1DBackward0(_UpsampleBackward):
    """Linear interpolation along one spatial dimension."""

    fused_node = UpsampleLinear1DBackwardBackward0
    explain = _UpsampleBackward.explain


class UpsampleBilinear2DBackward0(_UpsampleBackward):
    """Bilinear interpolation of two spatial dimensions."""

    fused_node = UpsampleBilinear2DBackwardBackward0
    explain = _UpsampleBackward.explain


class UpsampleTrilinear3DBackward0(_UpsampleBackward):
    """Trilinear interpolation of three spatial dimensions."""

    fused_node = UpsampleTrilinear3DBackwardBackward0
    explain = _UpsampleBackward.explain


_NODES = {
    ("nearest", 1): UpsampleNearest1DBackward0,
    ("nearest", 2): UpsampleNearest2DBackward0,
    ("nearest", 3): UpsampleNearest3DBackward0,
    ("nearest-exact", 1): UpsampleNearestExact1DBackward0,
    ("nearest-exact", 2): UpsampleNearestExact2DBackward0,
    ("nearest-exact", 3): UpsampleNearestExact3DBackward0,
    ("linear", 1): UpsampleLinear1DBackward0,
    ("bilinear", 2): UpsampleBilinear2DBackward0,
    ("trilinear", 3): UpsampleTrilinear3DBackward0,
}


def _upsampled(x: Tensor, params: tuple) -> Tensor:
    """x resized as `params` = (mode, output size, scale factors, align_corners) say,
    recorded with its node."""
    mode, out_size, scales, align_corners = params
    d = x._data
    k = len(out_size)
    in_spatial = d.shape[d.ndim - k :]
    acc = _acc(d.dtype)
    plans = [
        _axis_plan(acc, mode, i, o, s, align_corners)
        for i, o, s in zip(in_spatial, out_size, scales, strict=True)
    ]
    back = [
        _shortcut_plan(mode, i, o, p) for i, o, p in zip(in_spatial, out_size, plans, strict=True)
    ]
    if k == 2:
        plans = back
    r = _resize(d.astype(acc, copy=False), plans).astype(d.dtype, copy=False)
    res = wrap(as_array(r), x._dtype)
    if needs_grad(x):
        node = _NODES[mode, k]()
        node.params, node.plans, node.in_shape = params, back, tuple(d.shape)
        record(node, (x,), res)
    return res


def _check_sizes(in_spatial: tuple, out_size: tuple) -> None:
    if all(s > 0 for s in in_spatial) and all(s > 0 for s in out_size):
        return
    names = ("D", "H", "W")[3 - len(in_spatial) :]
    shown_in = ", ".join(f"{n}: {s}" for n, s in zip(names, in_spatial, strict=True))
    shown_out = ", ".join(f"{n}: {s}" for n, s in zip(names, out_size, strict=True))
    joint = " and" if len(in_spatial) == 1 else ""  # PyTorch's 1-d message says "and"
    raise RuntimeError(
        "Input and output sizes should be greater than 0, but got input "
        f"({shown_in}){joint} output ({shown_out})"
    )


def _kernel_name(mode: str, k: int) -> str:
    """The kernel PyTorch names when it refuses an integer input."""
    if k == 2:
        base = "bilinear" if mode == "bilinear" else "nearest"
        return f"upsample_{base}2d_channels_last"
    return "compute_indices_weights_" + ("nearest" if "nearest" in mode else "linear")


def interpolate(
    input: Tensor,  # noqa: A002 - PyTorch's name
    size=None,
    scale_factor=None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """`input` (N, C, d1, ..., dk) resized to `size`, or by `scale_factor`, with `mode`."""
    x = input
    k = x.dim() - 2
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and x.dim() == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            "requires a 4-D tensor as input"
        )
    spatial = list(x.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != k:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {spatial} and output size of "
                    f"{size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format."
                )
            out_size = tuple(int(s) for s in size)
        else:
            out_size = (int(size),) * k
        scales = (None,) * k
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != k:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {spatial} and scale_factor of "
                    f"shape {scale_factor}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                )
            scales = tuple(float(s) for s in scale_factor)
        else:
            scales = (float(scale_factor),) * k
        out_size = tuple(math.floor(float(i) * s) for i, s in zip(spatial, scales, strict=True))
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor:
        scales = (None,) * k
    if antialias:
        raise NotImplementedError(
            "gradshell does not support torch.nn.functional.interpolate with antialias=True yet"
        )
    linear = _LINEAR.get(k)
    if mode in ("nearest", "nearest-exact") and k in (1, 2, 3):
        pass
    elif mode in ("linear", "bilinear", "trilinear") and mode == linear:
        pass
    elif mode in ("linear", "bilinear", "trilinear"):
        needs = {"linear": 3, "bilinear": 4, "trilinear": 5}[mode]
        raise NotImplementedError(f"Got {x.dim()}D input, but {mode} mode needs {needs}D input")
    elif mode == "area" and k == 2:
        # PyTorch's 'area' is adaptive average pooling to the output size
        return adaptive_avg_pool2d(x, out_size)
    elif mode in ("bicubic", "area", "lanczos") and k in (1, 2, 3):
        raise NotImplementedError(
            f"gradshell does not support torch.nn.functional.interpolate(mode={mode!r}) yet"
        )
    else:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {x.dim()}D) for the "
            f"modes: {_ALL_MODES} (got {mode})"
        )
    if x._dtype.category != FLOAT:
        raise NotImplementedError(
            f"\"{_kernel_name(mode, k)}\" not implemented for '{x._dtype.scalar_name}'"
        )
    _check_sizes(tuple(spatial), out_size)
    return _upsampled(x, (mode, out_size, scales, bool(align_corners)))


def _deprecated(name: str) -> None:
    warnings.warn(
        f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.",
        UserWarning,
        stacklevel=3,
    )


def upsample(
    input: Tensor,  # noqa: A002 - PyTorch's name
    size=None,
    scale_factor=None,
    mode: str = "nearest",
    align_corners: bool | None = None,
) -> Tensor:
    """The deprecated name of interpolate (it warns)."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:  # noqa: A002
    """The deprecated nearest-neighbour interpolate (it warns)."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:  # noqa: A002
    """The deprecated bilinear interpolate with corners aligned (it warns)."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
