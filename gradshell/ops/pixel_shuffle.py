"""torch.nn.functional.pixel_shuffle and pixel_unshuffle: channels traded for space. With
factor r, (*, C·r², H, W) becomes (*, C, H·r, W·r) and back; each is the other's
gradient (PixelShuffleBackward0 runs pixel_unshuffle, and the reverse)."""

from __future__ import annotations

from gradshell.ops.base import Node, Tensor, as_array, needs_grad, record, wrap
from gradshell.ops.explanation import Ctx, Formula, Local
from gradshell.ops.registry import op

__all__ = ["pixel_shuffle", "pixel_unshuffle"]


def _shuffle_array(d, r: int):
    *lead, c, h, w = d.shape
    oc = c // (r * r)
    k = len(lead)
    t = d.reshape(*lead, oc, r, r, h, w)
    # (..., oc, r_h, r_w, h, w) -> (..., oc, h, r_h, w, r_w)
    t = t.transpose(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return t.reshape(*lead, oc, h * r, w * r)


def _unshuffle_array(d, r: int):
    *lead, c, h, w = d.shape
    oh, ow = h // r, w // r
    k = len(lead)
    t = d.reshape(*lead, c, oh, r, ow, r)
    # (..., c, oh, r_h, ow, r_w) -> (..., c, r_h, r_w, oh, ow)
    t = t.transpose(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return t.reshape(*lead, c * r * r, oh, ow)


class PixelShuffleBackward0(Node):
    """d pixel_shuffle: the gradient unshuffled back into the channels."""

    def backward(self, g):
        return (pixel_unshuffle(g, self.upscale_factor),)

    def explain(self, c: Ctx) -> Formula:
        r = c.attr("upscale_factor")
        return Formula(
            f"pixel_shuffle({c.sym(0)}, {r})",
            [
                Local(
                    "grad moved back to its channel",
                    kind="map",
                    apply=lambda g: _unshuffle_array(g, r),
                )
            ],
        )


class PixelUnshuffleBackward0(Node):
    """d pixel_unshuffle: the gradient shuffled back into space."""

    def backward(self, g):
        return (pixel_shuffle(g, self.downscale_factor),)

    def explain(self, c: Ctx) -> Formula:
        r = c.attr("downscale_factor")
        return Formula(
            f"pixel_unshuffle({c.sym(0)}, {r})",
            [
                Local(
                    "grad moved back to its position",
                    kind="map",
                    apply=lambda g: _shuffle_array(g, r),
                )
            ],
        )


def _check(name: str, x: Tensor, factor, what: str) -> None:
    if isinstance(factor, bool) or not isinstance(factor, int):
        raise TypeError(
            f"{name}(): argument '{what}' (position 2) must be int, not {type(factor).__name__}"
        )
    if x.dim() < 3:
        raise RuntimeError(
            f"{name} expects input to have at least 3 dimensions, but got input with "
            f"{x.dim()} dimension(s)"
        )
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {what}, but got {factor}")


@op(torch=("pixel_shuffle",))
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:  # noqa: A002
    """(*, C·r², H, W) → (*, C, H·r, W·r)."""
    x = input
    _check("pixel_shuffle", x, upscale_factor, "upscale_factor")
    r = upscale_factor
    c = x.shape[-3]
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    res = wrap(as_array(_shuffle_array(x._data, r).copy()), x._dtype)
    if needs_grad(x):
        node = PixelShuffleBackward0()
        node.upscale_factor = r
        record(node, (x,), res)
    return res


@op(torch=("pixel_unshuffle",))
def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:  # noqa: A002
    """(*, C, H·r, W·r) → (*, C·r², H, W)."""
    x = input
    _check("pixel_unshuffle", x, downscale_factor, "downscale_factor")
    r = downscale_factor
    for side, axis in (("height", -2), ("width", -1)):
        if x.shape[axis] % r:
            raise RuntimeError(
                f"pixel_unshuffle expects {side} to be divisible by downscale_factor, but "
                f"input.size({axis})={x.shape[axis]} is not divisible by {r}"
            )
    res = wrap(as_array(_unshuffle_array(x._data, r).copy()), x._dtype)
    if needs_grad(x):
        node = PixelUnshuffleBackward0()
        node.downscale_factor = r
        record(node, (x,), res)
    return res
