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
from functools import lru_cache

import numpy as np

from gradshell.core.fma import fma32, fma32_scalars, fma64_list, fma64_scalars

from . import _libm
from ._cephes import box_muller_words, kernel
from ._config import get_capability
from ._engine import Engine
from ._parallel import run_chunks
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
            out = _fma_small_or_vector(out, std, mean)
        else:
            out = out * std + mean
    else:
        out = out + 0.0  # fma(v, 1, +0) turns -0 into +0
    return out, cache


SMALL_FILL = 1024  # up to this many elements the float32 fill reads precomputed transforms


_FMA_LIST_BELOW = 40  # the integer FMA beats the vectorised one below this many elements


def _fma_small_or_vector(v: np.ndarray, std: float, mean: float) -> np.ndarray:
    if v.size < _FMA_LIST_BELOW and math.isfinite(std) and math.isfinite(mean):
        return np.array(fma64_list(v.tolist(), std, mean), dtype=np.float64)
    return fma64_scalars(v, std, mean)


def _fill32(engine: Engine, n: int, mean: float, std: float, wasted_tail: bool) -> np.ndarray:
    # Float32 fill path: 16-wide blocks over the first uniforms, then a last block of fresh
    # uniforms written over the final 16 slots.  PyTorch's float32 kernel first writes all
    # n uniforms (so the partial tail's draws are wasted); its float16 kernel does not.
    full = n // 16
    first = n if wasted_tail else 16 * full
    total = first + (16 if n % 16 else 0)
    avx2 = get_capability() == "avx2"
    if avx2 and n <= SMALL_FILL:
        out = _fill32_small(engine, n, total, first, mean, std)
        if out is not None:
            return out
    words = engine.u32(total)
    out = np.empty(n, dtype=np.float32)
    for dst, w in ((out[: 16 * full], words[: 16 * full]), (out[n - 16 :], words[first:])):
        if w.size == 0 or (dst.size != w.size):
            continue
        if avx2:
            box_muller_words(w.reshape(-1, 16), mean, std, out=dst.reshape(-1, 16))
        else:
            dst[...] = _scalar_float_blocks(u24_from_words(w), mean, std).reshape(-1)
    return out


class _Transforms:
    """Per-word radius and (cos, sin) for every word of an engine's lookahead buffer."""

    __slots__ = ("token", "radius", "trig")

    def __init__(self) -> None:
        self.token = -1
        self.radius = np.empty(0, dtype=np.float32)
        self.trig = np.empty(0, dtype=np.float32)  # cos(w0), sin(w0), cos(w1), sin(w1), ...


_LOOKAHEAD = 8192  # words buffered (and transformed) at a time for small float32 fills


def _transforms(engine: Engine, buf: np.ndarray) -> _Transforms:
    tr = engine.la_cache
    if not isinstance(tr, _Transforms):
        tr = engine.la_cache = _Transforms()
    if tr.token != engine.la_token:
        size = buf.size
        ker = kernel(size)
        radius = np.empty(size, dtype=np.float32)
        trig = np.empty((size, 2), dtype=np.float32)
        ker.suspect = False
        ker.radius(buf, radius)
        ker.sincos(buf, trig[:, 1], trig[:, 0])
        if ker.suspect:
            ker.radius(buf, radius, careful=True)
            ker.sincos(buf, trig[:, 1], trig[:, 0], careful=True)
        tr.radius, tr.trig, tr.token = radius, trig.reshape(-1), engine.la_token
    return tr


@lru_cache(maxsize=256)
def _small_plan(n: int, first: int) -> tuple[np.ndarray, np.ndarray]:
    # For each output slot, relative to the call's first word: the word whose radius it
    # uses, and 2 * (the word whose angle it uses) + (0 for cos, 1 for sin).
    full = n // 16
    src_r = np.empty(n, dtype=np.intp)
    src_t = np.empty(n, dtype=np.intp)
    for b in range(full):
        for k in range(16):
            src_r[16 * b + k] = 16 * b + (k % 8)
            src_t[16 * b + k] = 2 * (16 * b + 8 + (k % 8)) + (k >= 8)
    if n % 16:
        for k in range(16):
            slot = n - 16 + k
            src_r[slot] = first + (k % 8)
            src_t[slot] = 2 * (first + 8 + (k % 8)) + (k >= 8)
    return src_r, src_t


def _fill32_small(
    engine: Engine, n: int, total: int, first: int, mean: float, std: float
) -> np.ndarray | None:
    got = engine.lookahead(total, _LOOKAHEAD)
    if got is None:
        return None
    buf, start = got
    tr = _transforms(engine, buf)
    src_r, src_t = _small_plan(n, first)
    out = tr.radius[start:].take(src_r)
    out *= tr.trig[2 * start :].take(src_t)
    engine.u32(total)  # consume the words just used
    m32, s32 = np.float32(mean), np.float32(std)
    if m32 == 0 and s32 == 1 and not np.signbit(m32):
        return np.add(out, np.float32(0), out=out)  # fma(n, 1, +0) turns -0 into +0
    return fma32_scalars(out, s32, m32)


def fill_f32(engine: Engine, n: int, mean: float, std: float) -> np.ndarray:
    """The float32 fill path (n >= 16, contiguous)."""
    return _fill32(engine, n, mean, std, wasted_tail=True)


def fill_f16(engine: Engine, n: int, mean: float, std: float) -> np.ndarray:
    """The float16 fill path: float32 blocks, a tail block from fresh uniforms, then a cast."""
    return _fill32(engine, n, mean, std, wasted_tail=False).astype(np.float16)


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


_ROWS64 = 2048  # blocks of 16 per pass


def fill_f64(engine: Engine, n: int, mean: float, std: float) -> np.ndarray:
    """The float64 fill path (n >= 16, contiguous): glibc log/cos/sin, fused mean/std."""
    full = n // 16
    u = u53_from_u64(engine.u64(n + (16 if n % 16 else 0)))
    identity = mean == 0.0 and std == 1.0 and math.copysign(1.0, mean) > 0
    if n <= 4 * _ROWS64:
        # one pass over the full blocks and the tail block together
        blocks = u[: 16 * full].reshape(-1, 16)
        if n % 16:
            blocks = np.concatenate((blocks, u[n:].reshape(1, 16)))
        vals = np.empty_like(blocks)
        _f64_blocks(blocks, vals)
        vals = vals.reshape(-1)
        out = vals[:n].copy() if n % 16 == 0 else np.concatenate((vals[: n - 16], vals[-16:]))
        if identity:
            return np.add(out, 0.0, out=out)  # fma(v, 1, +0) turns -0 into +0
        return _fma_small_or_vector(out, std, mean)
    out = np.empty(n, dtype=np.float64)
    for dst, src in ((out[: 16 * full], u[: 16 * full]), (out[n - 16 :], u[n:])):
        if src.size == 0 or dst.size != src.size:
            continue
        blocks, dblocks = src.reshape(-1, 16), dst.reshape(-1, 16)

        def task(i: int, blocks=blocks, dblocks=dblocks) -> None:
            d = dblocks[i * _ROWS64 : (i + 1) * _ROWS64]
            _f64_blocks(blocks[i * _ROWS64 : (i + 1) * _ROWS64], d)
            if identity:
                np.add(d, 0.0, out=d)  # fma(v, 1, +0) turns -0 into +0
            else:
                d[...] = fma64_scalars(d, std, mean)

        run_chunks(task, -(-blocks.shape[0] // _ROWS64))
    return out


def _f64_blocks(u: np.ndarray, out: np.ndarray) -> None:
    radius = np.subtract(1.0, u[:, :8])
    radius = _libm.log(radius)
    np.multiply(radius, -2.0, out=radius)
    np.sqrt(radius, out=radius)
    theta = np.multiply(u[:, 8:], _TWO_PI)
    np.multiply(radius, _libm.cos(theta), out=out[:, :8])
    np.multiply(radius, _libm.sin(theta), out=out[:, 8:])
