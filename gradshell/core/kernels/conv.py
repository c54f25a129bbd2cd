"""The float32 order of PyTorch's CPU depthwise convolution (oneDNN's kernel).

PyTorch 2.13 sends a float32 convolution with groups > 1 to oneDNN.  For a depthwise
convolution (each group one input channel, any number of outputs per channel), measured
against PyTorch on an AMD EPYC with AVX-512: every output starts from its bias (0
without one) and takes one fused multiply-add per kernel tap, the taps in row-major
order (kh, then kw), padding taps included (an FMA with a zero input leaves the sum as
it is); a 1x1 kernel rounds its product, then adds the bias.  Bit for bit on the shapes tried (kernels 3x3 and 5x5, strides 1-2, dilation
1-2, with and without bias).  With a channel multiplier (more outputs than inputs) the
order differs on some shapes (a 1x1 output): not worked out, NumPy's product is used.
"""

from __future__ import annotations

import numpy as np

from gradshell.core.kernels.fp32 import fma

MAX_WORK = 1 << 25  # output elements x taps beyond which NumPy's product is used


def depthwise(
    xpad: np.ndarray,
    w: np.ndarray,
    bias: np.ndarray | None,
    stride: tuple[int, int],
    dil: tuple[int, int],
    out_hw: tuple[int, int],
    padded: bool = False,
) -> np.ndarray | None:
    """PyTorch's float32 depthwise convolution of the padded input `xpad` (N, C, H, W) by
    `w` (C, 1, kh, kw), plus `bias` (C,) or None (`padded`: whether `xpad` has padding);
    None where the order is not known (other dtypes, multipliers, a padded 1x1 kernel,
    too much work)."""
    if xpad.dtype != np.float32 or w.dtype != np.float32 or w.shape[1] != 1:
        return None
    n, c = xpad.shape[:2]
    o, _, kh, kw = w.shape
    if c == 0 or o % c or n * o * out_hw[0] * out_hw[1] * kh * kw > MAX_WORK:
        return None
    if o != c:
        return None  # a channel multiplier: oneDNN's order differs on some shapes
    if kh * kw == 1 and padded:
        return None  # one tap over a padded input: the product rounded, then the bias added
    ho, wo = out_hw
    mult = o // c
    # output channel j reads input channel j // mult
    src = np.repeat(xpad, mult, axis=1) if mult > 1 else xpad
    acc = np.zeros((n, o, ho, wo), np.float32)
    if bias is not None:
        acc += np.asarray(bias, np.float32).reshape(1, o, 1, 1)
    with np.errstate(all="ignore"):
        for i in range(kh):
            r0 = i * dil[0]
            rows = slice(r0, r0 + stride[0] * (ho - 1) + 1, stride[0])
            for j in range(kw):
                c0 = j * dil[1]
                cols = slice(c0, c0 + stride[1] * (wo - 1) + 1, stride[1])
                tap = np.ascontiguousarray(src[:, :, rows, cols])
                acc = fma(tap, w[:, 0, i, j].reshape(1, o, 1, 1), acc)
    return acc
