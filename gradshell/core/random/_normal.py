"""Normal samples: PyTorch's serial Box-Muller path and its 16-wide fill paths.

Which path runs depends on the tensor, exactly as in PyTorch's CPU ``normal_``:

* fewer than 16 elements, or a non-contiguous tensor: the *serial* path, a float64
  Box-Muller per element (``u1``, ``u2`` = two 53-bit uniforms, ``r = sqrt(-2 log1p(-u2))``,
  ``theta = 2 pi u1``; the element gets ``r cos(theta)`` and ``r sin(theta)`` is cached in the
  generator for the next element, even across calls), then ``fma(v, std, mean)`` in float64
  and a cast to the tensor's dtype;
* 16 or more contiguous elements: the *fill* path, in blocks of 16 (see ``_cephes``), with
  a last block that redraws 16 fresh uniforms into the final 16 slots.
"""

from __future__ import annotations

import math

import numpy as np

from . import _libm
from ._cephes import box_muller_blocks
from ._config import get_capability
from ._engine import Engine
from ._fma import fma32, fma64, fma64_fast
from ._uniform import u24_from_words, u53_from_u64

_TWO_PI = 2.0 * math.pi


def serial(
    engine: Engine, cache: float | None, n: int, mean: float, std: float
) -> tuple[np.ndarray, float | None]:
    """Run the serial path for ``n`` elements; return (float64 values, new cached sample)."""
    fused = get_capability() == "avx2"
    out = np.empty(n, dtype=np.float64)
    start = 0
    if n and cache is not None:
        out[0] = cache
        cache = None
        start = 1
    pairs = (n - start + 1) // 2
    if pairs:
        u = u53_from_u64(engine.u64(2 * pairs))
        u1, u2 = u[0::2], u[1::2]
        if pairs <= 8:
            vals = []
            for a, b in zip(u1.tolist(), u2.tolist(), strict=True):
                r = math.sqrt(-2.0 * math.log1p(-b))
                th = _TWO_PI * a
                vals.append(r * math.cos(th))
                vals.append(r * math.sin(th))
            v = np.array(vals)
        else:
            r = np.sqrt(-2.0 * _libm.log1p(-u2))
            th = _TWO_PI * u1
            v = np.empty(2 * pairs)
            v[0::2] = r * _libm.cos(th)
            v[1::2] = r * _libm.sin(th)
        take = n - start
        out[start:] = v[:take]
        if take < 2 * pairs:
            cache = float(v[-1])
    if not (mean == 0.0 and std == 1.0 and math.copysign(1.0, mean) > 0) or not fused:
        if fused:
            if n <= 16:
                out = np.array([fma64_fast(x, std, mean) for x in out.tolist()])
            else:
                out = fma64(out, std, mean)
        else:
            out = out * std + mean
    else:
        out = out + 0.0  # fma(v, 1, +0) turns -0 into +0
    return out, cache


def _blocks_and_tail(n: int, wasted_tail: bool) -> tuple[int, int]:
    # (number of uniforms drawn for the main pass, number of full blocks)
    full = n // 16
    return (n if wasted_tail else 16 * full), full


def fill_f32(engine: Engine, n: int, mean: float, std: float) -> np.ndarray:
    """The float32 fill path (n >= 16, contiguous)."""
    first, full = _blocks_and_tail(n, wasted_tail=True)
    u = u24_from_words(engine.u32(first + (16 if n % 16 else 0)))
    out = np.empty(n, dtype=np.float32)
    if get_capability() == "avx2":
        transform = box_muller_blocks
    else:
        transform = _scalar_float_blocks
    if full:
        out[: 16 * full] = transform(u[: 16 * full].reshape(-1, 16), mean, std).reshape(-1)
    if n % 16:
        out[n - 16 :] = transform(u[first:].reshape(1, 16), mean, std).reshape(-1)
    return out


def fill_f16(engine: Engine, n: int, mean: float, std: float) -> np.ndarray:
    """The float16 fill path: float32 blocks, a tail block from fresh uniforms, then a cast."""
    first, full = _blocks_and_tail(n, wasted_tail=False)
    u = u24_from_words(engine.u32(first + (16 if n % 16 else 0)))
    transform = box_muller_blocks if get_capability() == "avx2" else _scalar_float_blocks
    out = np.empty(n, dtype=np.float32)
    if full:
        out[: 16 * full] = transform(u[: 16 * full].reshape(-1, 16), mean, std).reshape(-1)
    if n % 16:
        out[n - 16 :] = transform(u[first:].reshape(1, 16), mean, std).reshape(-1)
    return out.astype(np.float16)


def _scalar_float_blocks(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    # PyTorch's portable float kernel: libm logf/cosf/sinf, theta computed in double.
    u = u.reshape(-1, 16)
    u1 = np.float32(1) - u[:, :8]
    radius = np.sqrt(np.float32(-2) * _libm.logf(u1))
    theta = (_TWO_PI * u[:, 8:].astype(np.float64)).astype(np.float32)
    out = np.empty_like(u)
    m32, s32 = np.float32(mean), np.float32(std)
    out[:, :8] = fma32(radius * _libm.cosf(theta), s32, m32)
    out[:, 8:] = fma32(radius * _libm.sinf(theta), s32, m32)
    return out


def fill_f64(engine: Engine, n: int, mean: float, std: float) -> np.ndarray:
    """The float64 fill path (n >= 16, contiguous): glibc log/cos/sin, fused mean/std."""
    full = n // 16
    u = u53_from_u64(engine.u64(n + (16 if n % 16 else 0)))
    out = np.empty(n, dtype=np.float64)
    if full:
        out[: 16 * full] = _f64_blocks(u[: 16 * full].reshape(-1, 16), mean, std).reshape(-1)
    if n % 16:
        out[n - 16 :] = _f64_blocks(u[n:].reshape(1, 16), mean, std).reshape(-1)
    return out


def _f64_blocks(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    radius = np.sqrt(-2.0 * _libm.log(1.0 - u[:, :8]))
    theta = _TWO_PI * u[:, 8:]
    out = np.empty_like(u)
    out[:, :8] = radius * _libm.cos(theta)
    out[:, 8:] = radius * _libm.sin(theta)
    if mean == 0.0 and std == 1.0 and math.copysign(1.0, mean) > 0:
        return out + 0.0
    return fma64(out, std, mean)
