"""torch.nn.functional.pad: constant padding of any of the last dimensions (negative
amounts crop), and reflection or replication padding of the last one, two or three
dimensions, with PyTorch's nodes (ConstantPadNdBackward0, ReflectionPad{1,2,3}DBackward0,
ReplicationPad{1,2,3}DBackward0) and its errors.

Reflection and replication copy input elements to the border: each output position reads
one input position (an index map per padded dimension), so the backward adds the
gradient of every output position to the input position it read.
"""

from __future__ import annotations

import numpy as np

from gradshell.ops.base import (
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
from gradshell.ops.registry import op

__all__ = ["constant_pad_nd", "pad"]


def _pairs(pad: tuple) -> list[tuple[int, int, int]]:
    """(axis from the end, before, after) for each padded dimension: pad lists the last
    dimension's amounts first."""
    return [(k + 1, pad[2 * k], pad[2 * k + 1]) for k in range(len(pad) // 2)]


# -- constant padding ---------------------------------------------------------------------------
def _constant_pad_array(d, pad: tuple, value):
    """d cropped by the negative amounts and padded with `value` by the positive ones."""
    xp = array_module(d)
    crop = [slice(None)] * d.ndim
    widths = [(0, 0)] * d.ndim
    for back, before, after in _pairs(pad):
        axis = d.ndim - back
        size = d.shape[axis]
        start = -before if before < 0 else 0
        stop = size + after if after < 0 else size
        if stop - start < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        crop[axis] = slice(start, stop)
        widths[axis] = (max(before, 0), max(after, 0))
    cropped = d[tuple(crop)]
    if not any(w != (0, 0) for w in widths):
        return cropped.copy()
    return xp.pad(cropped, widths, mode="constant", constant_values=value)


class ConstantPadNdBackward0(Node):
    """d constant_pad_nd: the gradient with the padding cut off again (and zeros where
    the input was cropped): the same op with the amounts negated."""

    def backward(self, g):
        return (constant_pad_nd(g, tuple(-p for p in self.pad), 0),)

    def explain(self, c: Ctx) -> Formula:
        pad = c.attr("pad")
        back = tuple(-p for p in pad)
        return Formula(
            f"pad({c.sym(0)}, {list(pad)})",
            [
                Local(
                    "1 for each element kept (the padding's gradient is dropped)",
                    kind="map",
                    apply=lambda g: _constant_pad_array(g, back, 0),
                )
            ],
        )


@op(torch=("constant_pad_nd",))
def constant_pad_nd(x: Tensor, pad: tuple, value=0) -> Tensor:
    """x padded by `pad` (negative amounts crop) with `value`: PyTorch's constant_pad_nd."""
    if value is None:
        value = 0
    fill = np.array(value).astype(x._dtype.np)  # the value cast to x's dtype (2.5 → 2)
    res = wrap(as_array(_constant_pad_array(x._data, pad, fill)), x._dtype)
    if needs_grad(x):
        node = ConstantPadNdBackward0()
        node.pad = tuple(pad)
        record(node, (x,), res)
    return res


# -- reflection and replication padding ---------------------------------------------------------
def _index_map(size: int, before: int, after: int, mode: str) -> np.ndarray:
    """For each output position along one dimension, the input position it copies."""
    i = np.arange(-before, size + after)
    if mode == "reflect":
        i = np.abs(i)
        return np.where(i >= size, 2 * (size - 1) - i, i)
    return np.clip(i, 0, size - 1)


def _gather(d, pad: tuple, mode: str):
    for back, before, after in _pairs(pad):
        axis = d.ndim - back
        d = d.take(_index_map(d.shape[axis], before, after, mode), axis=axis)
    return d


def _scatter(g, shape: tuple, pad: tuple, mode: str):
    """The gradient for an input of `shape`: each output position's gradient added to
    the input position it copied."""
    xp = array_module(g)
    for back, before, after in reversed(_pairs(pad)):
        axis = g.ndim - back
        size = shape[axis]
        idx = _index_map(size, before, after, mode)
        moved = xp.moveaxis(g, axis, -1)
        out = xp.zeros(moved.shape[:-1] + (size,), g.dtype)
        np.add.at(out, (Ellipsis, idx), moved)
        g = xp.moveaxis(out, -1, axis)
    return g


class _PadBackwardBackward(FusedBackward):
    """The padding's backward (a sum over copies) differentiated: by the gradient the
    padding again; by the input nothing (the copies do not depend on its values)."""

    inputs = ("grad_output", "self")

    def grads(self, gg, wanted, g, x):
        again = _padded(gg, self.pad, self.mode) if wanted[0] else None
        zeros = wrap(as_array(array_module(x._data).zeros(x._data.shape, x._data.dtype)), x._dtype)
        return again, (zeros if wanted[1] else None)

    no_explanation = BACKWARD_OF_BACKWARD


class ReflectionPad1DBackwardBackward0(_PadBackwardBackward):
    """reflection_pad1d_backward differentiated."""

    no_explanation = _PadBackwardBackward.no_explanation


class ReflectionPad2DBackwardBackward0(_PadBackwardBackward):
    """reflection_pad2d_backward differentiated."""

    no_explanation = _PadBackwardBackward.no_explanation


class ReflectionPad3DBackwardBackward0(_PadBackwardBackward):
    """reflection_pad3d_backward differentiated."""

    no_explanation = _PadBackwardBackward.no_explanation


class ReplicationPad1DBackwardBackward0(_PadBackwardBackward):
    """replication_pad1d_backward differentiated."""

    no_explanation = _PadBackwardBackward.no_explanation


class ReplicationPad2DBackwardBackward0(_PadBackwardBackward):
    """replication_pad2d_backward differentiated."""

    no_explanation = _PadBackwardBackward.no_explanation


class ReplicationPad3DBackwardBackward0(_PadBackwardBackward):
    """replication_pad3d_backward differentiated."""

    no_explanation = _PadBackwardBackward.no_explanation


class _PadBackward(Node):
    """d of a reflection or replication padding: each input element's gradient is the sum
    of the gradients of the output positions that copy it."""

    fused_node: type[FusedBackward] = _PadBackwardBackward

    def backward(self, g):
        x = self.saved("self")
        shape = tuple(x._data.shape)
        pad, mode = self.pad, self.mode
        return (
            fused(
                self.fused_node,
                (g, x),
                lambda g, x: wrap(as_array(_scatter(g._data, shape, pad, mode)), g._dtype),
                opmath=False,
                pad=pad,
                mode=mode,
            ),
        )

    def explain(self, c: Ctx) -> Formula:
        pad, mode = c.attr("pad"), c.attr("mode")
        shape = c.saved("self").shape
        return Formula(
            f"pad({c.sym(0)}, {list(pad)}, mode={mode!r})",
            [
                Local(
                    "the sum of the gradients of the positions that copy each element",
                    kind="map",
                    apply=lambda g: _scatter(g, shape, pad, mode),
                )
            ],
        )


class ReflectionPad1DBackward0(_PadBackward):
    """Reflection padding of the last dimension."""

    fused_node = ReflectionPad1DBackwardBackward0
    explain = _PadBackward.explain


class ReflectionPad2DBackward0(_PadBackward):
    """Reflection padding of the last two dimensions."""

    fused_node = ReflectionPad2DBackwardBackward0
    explain = _PadBackward.explain


class ReflectionPad3DBackward0(_PadBackward):
    """Reflection padding of the last three dimensions."""

    fused_node = ReflectionPad3DBackwardBackward0
    explain = _PadBackward.explain


class ReplicationPad1DBackward0(_PadBackward):
    """Replication padding of the last dimension."""

    fused_node = ReplicationPad1DBackwardBackward0
    explain = _PadBackward.explain


class ReplicationPad2DBackward0(_PadBackward):
    """Replication padding of the last two dimensions."""

    fused_node = ReplicationPad2DBackwardBackward0
    explain = _PadBackward.explain


class ReplicationPad3DBackward0(_PadBackward):
    """Replication padding of the last three dimensions."""

    fused_node = ReplicationPad3DBackwardBackward0
    explain = _PadBackward.explain


_NODES = {
    ("reflect", 1): ReflectionPad1DBackward0,
    ("reflect", 2): ReflectionPad2DBackward0,
    ("reflect", 3): ReflectionPad3DBackward0,
    ("replicate", 1): ReplicationPad1DBackward0,
    ("replicate", 2): ReplicationPad2DBackward0,
    ("replicate", 3): ReplicationPad3DBackward0,
}


def _padded(x: Tensor, pad: tuple, mode: str) -> Tensor:
    """Reflection or replication padding of x, recorded with its node."""
    res = wrap(as_array(_gather(x._data, pad, mode)), x._dtype)
    if needs_grad(x):
        node = _NODES[mode, len(pad) // 2]()
        node.pad, node.mode = tuple(pad), mode
        node.save("self", x)
        record(node, (x,), res)
    return res


def _check_copy_padding(x: Tensor, pad: tuple, mode: str) -> None:
    k = len(pad) // 2
    nd = x.dim()
    if k not in (1, 2, 3) or nd not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {nd}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    shape = list(x.shape)
    batched = nd == k + 2
    if any(s == 0 for s in shape[1 if batched else 0 :]):
        raise RuntimeError(
            f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size "
            f"and other non-zero dimensions for input, but got: {shape}"
        )
    out = list(shape)
    for back, before, after in _pairs(pad):
        out[nd - back] = shape[nd - back] + before + after
    if k == 1 and out[-1] < 1:
        raise RuntimeError(f"input (W: {shape[-1]}) is too small. Calculated output W: {out[-1]}")
    if any(s < 0 for s in out):
        if mode == "reflect" and k == 2:  # PyTorch's 2-d reflection kernel says this
            raise RuntimeError("numel: integer multiplication overflow")
        first = next(s for s in out if s < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {first}: {out}")
    if mode == "reflect":
        for j, (back, before, after) in enumerate(_pairs(pad)):
            axis = nd - back
            if before >= shape[axis] or after >= shape[axis]:
                raise RuntimeError(
                    f"Argument #{4 + 2 * j}: Padding size should be less than the corresponding "
                    f"input dimension, but got: padding ({before}, {after}) at dimension "
                    f"{axis} of input {shape}"
                )


def pad(
    input: Tensor,  # noqa: A002 - PyTorch's name
    pad,
    mode: str = "constant",
    value: float | None = None,
) -> Tensor:
    """`input` padded at the end of its last dimensions by `pad` = (last_before,
    last_after, second_last_before, ...): with `value` ('constant'), the mirror image
    without the edge ('reflect') or the edge repeated ('replicate')."""
    pad = tuple(pad)
    for i, p in enumerate(pad):
        if not isinstance(p, (int, np.integer)):
            raise TypeError(
                f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element "
                f"of type {type(p).__name__} at pos {i}"
            )
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {input.dim()}"
        )
    if mode == "constant":
        return constant_pad_nd(input, pad, value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if mode == "circular":
        raise NotImplementedError(
            "gradshell does not support torch.nn.functional.pad with mode='circular' yet"
        )
    if mode not in ("reflect", "replicate"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    _check_copy_padding(input, pad, mode)
    return _padded(input, pad, mode)
