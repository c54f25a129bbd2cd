"""Bernoulli, exponential and multinomial draws.

* ``bernoulli(p_tensor)``: one uniform per element in the precision of *p's* dtype (a 24-bit
  float uniform for float16/float32 ``p``, a 53-bit double for float64), result ``u < p``.
  ``p`` is checked element by element while drawing, so a bad entry raises after the
  elements before it have consumed their draws, exactly as in PyTorch.
* ``bernoulli_(float p)``: one 53-bit double per element, result ``u < p``.
* ``exponential_(lambda)``: one 53-bit double ``u`` per element, ``(-1/lambda) * log1p(-u)``
  in double, then cast.
* ``multinomial``: without replacement (or for a single sample) it is the Gumbel-top-k trick,
  ``exponential_(1)`` on a tensor shaped like the probabilities, ``p / q``, then ``argmax`` or
  ``topk``; with replacement, per row, a cumulative sum in the accumulation type (float for
  half) normalised by its total, and a lower-bound binary search for each 53-bit double
  uniform.
"""

from __future__ import annotations

import math

import numpy as np

from . import _libm
from ._engine import Engine
from ._stl import topk_indices
from ._uniform import u24_from_words, u53_from_u64

_P_MSG = (
    "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
    "be improved?  If so, please report an enhancement request to PyTorch.)"
)
_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
_TORCH_NAME = {
    np.dtype(np.bool_): "Bool",
    np.dtype(np.uint8): "Byte",
    np.dtype(np.int8): "Char",
    np.dtype(np.int16): "Short",
    np.dtype(np.int32): "Int",
    np.dtype(np.int64): "Long",
    np.dtype(np.uint16): "UInt16",
    np.dtype(np.uint32): "UInt32",
    np.dtype(np.uint64): "UInt64",
}


def torch_type_name(dtype) -> str:
    """PyTorch's ScalarType name for a NumPy dtype (as printed in dispatch errors)."""
    dt = np.dtype(dtype)
    return {np.float16: "Half", np.float32: "Float", np.float64: "Double"}.get(
        dt.type, _TORCH_NAME.get(dt, str(dt))
    )


def uniforms_like(engine: Engine, n: int, dtype) -> np.ndarray:
    """``n`` uniforms in the precision PyTorch uses for a tensor of ``dtype``."""
    if np.dtype(dtype) == np.float64:
        return u53_from_u64(engine.u64(n))
    return u24_from_words(engine.u32(n))


def bernoulli_tensor(engine: Engine, p: np.ndarray) -> np.ndarray:
    """``u < p`` elementwise, drawing in p's precision; returns a bool array shaped like p."""
    p = np.asarray(p)
    if p.dtype not in _FLOATS:
        raise NotImplementedError(
            f"\"bernoulli_tensor_cpu_p_\" not implemented for '{torch_type_name(p.dtype)}'"
        )
    flat = p.reshape(-1)
    bad = np.flatnonzero(~((flat >= 0) & (flat <= 1)))
    if bad.size:
        uniforms_like(engine, int(bad[0]), p.dtype)  # the elements before it drew already
        raise RuntimeError(_P_MSG)
    u = uniforms_like(engine, flat.size, p.dtype)
    cmp_dtype = np.float64 if p.dtype == np.float64 else np.float32
    return (u < flat.astype(cmp_dtype)).reshape(p.shape)


def bernoulli_scalar(engine: Engine, n: int, p: float) -> np.ndarray:
    """``n`` draws of ``U53 < p`` (``bernoulli_(float p)``), as a bool array."""
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")
    return u53_from_u64(engine.u64(n)) < p


def exponential(engine: Engine, n: int, lambd: float) -> np.ndarray:
    """``n`` float64 exponential draws (callers cast to the tensor dtype)."""
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    u = u53_from_u64(engine.u64(n))
    scale = -1.0 / lambd
    return scale * _libm.log1p(-u)


def cast_float(x: np.ndarray, dtype) -> np.ndarray:
    """Cast float64 results to a float dtype as PyTorch does (half goes through float)."""
    dt = np.dtype(dtype)
    if dt == np.float16:
        return x.astype(np.float32).astype(np.float16)
    return x.astype(dt)


def multinomial(engine: Engine, probs: np.ndarray, n_sample: int, replacement: bool) -> np.ndarray:
    """``torch.multinomial(probs, n_sample, replacement)``: int64 indices."""
    probs = np.asarray(probs)
    if probs.dtype not in _FLOATS:
        raise RuntimeError(
            "multinomial only supports floating-point dtypes for input, got: "
            f"{torch_type_name(probs.dtype)}"
        )
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    n_sample = int(n_sample)
    if n_sample <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_cat = probs.shape[-1]
    if not replacement and n_sample > n_cat:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if n_cat > 1 << 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    out_shape = probs.shape[:-1] + (n_sample,)
    if probs.size == 0:
        if n_cat == 0 and (probs.ndim == 1 or probs.shape[0] > 0):
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                "has no identity."
            )
        return np.empty(out_shape, dtype=np.int64)
    rows = probs.reshape(-1, n_cat)
    if not replacement or n_sample == 1:
        if rows.size and not (np.isfinite(rows).all() and (rows >= 0).all()):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (rows.sum(axis=1, dtype=np.float64) <= 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        q = cast_float(exponential(engine, rows.size, 1.0), probs.dtype).reshape(rows.shape)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            keys = rows / q
        if n_sample == 1:
            # argmax: first maximal index, NaN counting as the maximum
            idx = np.argmax(keys, axis=1)[:, None]
        else:
            idx = np.stack([topk_indices(row, n_sample) for row in keys])
        return idx.astype(np.int64).reshape(out_shape)
    return _with_replacement(engine, rows, n_sample).reshape(out_shape)


def _with_replacement(engine: Engine, rows: np.ndarray, n_sample: int) -> np.ndarray:
    out = np.empty((rows.shape[0], n_sample), dtype=np.int64)
    for r, row in enumerate(rows):
        # PyTorch validates each row as it reaches it, after earlier rows have drawn.
        if not (np.isfinite(row).all() and (row >= 0).all()):
            if not (row >= 0).all():
                raise RuntimeError(
                    "invalid multinomial distribution (encountering probability entry < 0)"
                )
            raise RuntimeError(
                "invalid multinomial distribution (encountering probability entry = infinity or NaN)"
            )
        # sequential sums in the accumulation type (float for half), rounding at each step
        acc = np.float32 if row.dtype == np.float16 else row.dtype
        cum = np.cumsum(row, dtype=acc)
        total = cum[-1]
        if not total > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        cum = cum / total
        cum[-1] = 1
        u = u53_from_u64(engine.u64(n_sample))
        out[r] = np.searchsorted(cum.astype(np.float64), u, side="left")
    return out


def _fmt(x: float) -> str:
    # C++ ostream's default formatting of a double (6 significant digits, %g style)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return format(x, ".6g")
