"""Integer-valued draws: ``randint`` / ``random_(from, to)``, ``random_()`` and the dtype rules.

``random_(from, to)`` draws one value per element from ``[from, to)``:
``(draw % range) + from`` with plain modulo (no rejection), where ``draw`` is one 32-bit word
when ``range < 2**28`` and one ``random64()`` (two words) otherwise, for every dtype.  For
floating dtypes PyTorch first nudges ``from``/``to`` onto values the dtype can hold (when
``from + 1`` or ``to - 1`` is not representable), checks the bounds of the dtype, and warns
when the range leaves the exactly representable integers.  ``random_()`` without bounds
draws ``word % (max + 1)`` for integer dtypes (``random64()`` for int64), the low bit for
bool, and ``draw % (2**digits + 1)`` for floating dtypes.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ._engine import Engine

SWITCH_64 = 1 << 28  # ranges at or above this use random64() (PyTorch's public builds)
INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1


@dataclass(frozen=True)
class DtypeInfo:
    """What the integer samplers need to know about a dtype."""

    np_dtype: np.dtype
    ctype: str  # the C++ name PyTorch prints in bound errors
    torch_name: str  # PyTorch's ScalarType name, used in "not implemented for" errors
    digits: int  # mantissa digits for floating dtypes, 0 otherwise
    lowest: float | int
    highest: float | int

    @property
    def is_float(self) -> bool:
        """True for floating dtypes."""
        return self.digits > 0


def _int_info(dt, ctype: str, name: str) -> DtypeInfo:
    ii = np.iinfo(dt)
    return DtypeInfo(np.dtype(dt), ctype, name, 0, int(ii.min), int(ii.max))


def _float_info(dt, ctype: str, name: str, digits: int) -> DtypeInfo:
    fi = np.finfo(dt)
    return DtypeInfo(np.dtype(dt), ctype, name, digits, float(fi.min), float(fi.max))


INFO: dict[np.dtype, DtypeInfo] = {
    i.np_dtype: i
    for i in (
        DtypeInfo(np.dtype(np.bool_), "bool", "Bool", 0, 0, 1),
        _int_info(np.uint8, "unsigned char", "Byte"),
        _int_info(np.int8, "signed char", "Char"),
        _int_info(np.int16, "short int", "Short"),
        _int_info(np.uint16, "short unsigned int", "UInt16"),
        _int_info(np.int32, "int", "Int"),
        _int_info(np.uint32, "unsigned int", "UInt32"),
        _int_info(np.int64, "long int", "Long"),
        _int_info(np.uint64, "long unsigned int", "UInt64"),
        _float_info(np.float16, "c10::Half", "Half", 11),
        _float_info(np.float32, "float", "Float", 24),
        _float_info(np.float64, "double", "Double", 53),
    )
}


def dtype_info(dtype) -> DtypeInfo:
    """Look up a NumPy dtype, raising PyTorch's kind of error for unsupported ones."""
    dt = np.dtype(dtype)
    try:
        return INFO[dt]
    except KeyError:
        raise NotImplementedError(f"dtype {dt} is not supported by the random generator") from None


def _as_int64(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an integer, got {type(value).__name__}")
    v = int(value)
    if not INT64_MIN <= v <= INT64_MAX:
        raise ValueError("Overflow when unpacking long long")
    return v


def _cast_to_int(info: DtypeInfo, v: int) -> int:
    # static_cast<int64_t>(static_cast<scalar_t>(v)), with x86's answer for infinities
    with np.errstate(over="ignore"):
        f = info.np_dtype.type(v) if abs(v) < 2**120 else info.np_dtype.type(np.inf)
    if not np.isfinite(f):
        return INT64_MIN
    return int(f)


def _nudge_from(info: DtypeInfo, frm: int) -> int:
    # When from + 1 rounds below from in the dtype, move from up by one spacing of the dtype.
    plus1 = _cast_to_int(info, frm + 1)
    if plus1 < frm:
        n = abs(frm + 1).bit_length() - 1
        frm = plus1 + (1 << (n - info.digits + 1))
    return frm


def _nudge_to(info: DtypeInfo, to: int) -> int:
    # When to - 1 rounds up to to or beyond, lower to by one spacing below the rounded value.
    minus1 = _cast_to_int(info, to - 1)
    if minus1 >= to:
        n = abs(to - 1).bit_length() - 1
        to = minus1 - (1 << (n - info.digits + 1))
    return to


def _check_in_range(info: DtypeInfo, frm: int, to_inc: int) -> None:
    if info.is_float:
        if not info.lowest <= frm <= info.highest:
            raise RuntimeError(f"from is out of bounds for {info.ctype}")
        if not info.lowest <= to_inc <= info.highest:
            raise RuntimeError(f"to - 1 is out of bounds for {info.ctype}")
        lim = 1 << info.digits
        tail = (
            f"is out of bounds [-(2^{info.digits}), 2^{info.digits}]. Due to precision "
            f"limitations {info.ctype} can support discrete uniform distribution only within "
            "this range. This warning will become an error in version 1.7 release, please fix "
            "the code in advance"
        )
        if not -lim <= frm <= lim:
            warnings.warn(f"from {tail}", UserWarning, stacklevel=4)
        if not -lim <= to_inc <= lim:
            warnings.warn(f"to - 1 {tail}", UserWarning, stacklevel=4)
    else:
        if not info.lowest <= frm <= info.highest:
            raise RuntimeError(f"from is out of bounds for {info.ctype}")
        if not info.lowest <= to_inc <= info.highest:
            raise RuntimeError(f"to - 1 is out of bounds for {info.ctype}")


def plan_from_to(dtype, frm, to) -> tuple[DtypeInfo, int, int]:
    """Validate ``random_(from, to)`` like PyTorch; return (info, range, from)."""
    info = dtype_info(dtype)
    frm = _as_int64(frm, "from")
    to = _as_int64(to, "to")
    if frm >= to:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={frm} >= to={to}"
        )
    if info.is_float:
        frm = _nudge_from(info, frm)
        to = _nudge_to(info, to)
        if frm >= to:
            raise RuntimeError(
                "random_ expects 'from' casted to dtype to be less than 'to' casted to "
                f"dtype, but got from={frm} >= to={to}"
            )
    _check_in_range(info, frm, to - 1)
    return info, to - frm, frm


def plan_from(dtype, frm) -> tuple[DtypeInfo, int | None, int]:
    """Validate ``random_(from, None)``; range ``None`` means the full 64-bit range."""
    info = dtype_info(dtype)
    frm = _as_int64(frm, "from")
    if frm == INT64_MIN:
        if info.np_dtype not in (np.dtype(np.int64), np.dtype(np.float64), np.dtype(np.float32)):
            raise RuntimeError(
                "random_full_64_bits_range_kernel_cpu handles only int64, double, float and "
                "bfloat16"
            )
        return info, None, frm
    if info.is_float:
        to_inc = min(1 << info.digits, INT64_MAX)
        frm = _nudge_from(info, frm)
        if not frm < to_inc:
            raise RuntimeError(
                "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                f"casted to dtype, but got from={frm} > to_inc={to_inc}"
            )
    else:
        to_inc = int(info.highest)
    _check_in_range(info, frm, to_inc)
    return info, to_inc - frm + 1, frm


def draw_from_to(engine: Engine, n: int, span: int | None, frm: int, info: DtypeInfo) -> np.ndarray:
    """``n`` values ``(draw % span) + frm`` cast to the dtype; ``span=None``: full 64 bits."""
    if span is None:
        vals = engine.u64(n).view(np.int64)
        return vals.astype(info.np_dtype)
    if span >= SWITCH_64:
        r = _mod(engine.u64(n), span)
    else:
        r = _mod(engine.u32(n), span)
    # (r + from) wraps modulo 2**64 exactly as PyTorch's uint64 arithmetic does
    vals = (r.astype(np.uint64) + np.uint64(frm % (1 << 64))).view(np.int64)
    return _cast(vals, info)


def _mod(w: np.ndarray, span: int) -> np.ndarray:
    if span & (span - 1) == 0:
        return w & w.dtype.type(span - 1)
    if span > int(np.iinfo(w.dtype).max):
        return w  # every draw is already below the range
    d = w.dtype.type(span)
    # floor_divide by a scalar uses a precomputed reciprocal and is far faster than %
    return w - (w // d) * d


def _cast(vals: np.ndarray, info: DtypeInfo) -> np.ndarray:
    if info.np_dtype == np.float16:
        return vals.astype(np.float32).astype(np.float16)  # int64 -> float -> half
    return vals.astype(info.np_dtype)


def draw_default(engine: Engine, n: int, info: DtypeInfo) -> np.ndarray:
    """``random_()`` without bounds for the dtype."""
    dt = info.np_dtype
    if dt == np.bool_:
        return (engine.u32(n) & np.uint32(1)).astype(np.bool_)
    if info.torch_name in ("UInt16", "UInt32", "UInt64"):
        raise NotImplementedError(f"\"random_kernel_cpu\" not implemented for '{info.torch_name}'")
    if dt == np.int64:
        return (engine.u64(n) & np.uint64(INT64_MAX)).view(np.int64)
    if dt == np.float64:
        return _mod(engine.u64(n), (1 << 53) + 1).view(np.int64).astype(np.float64)
    if info.is_float:
        vals = _mod(engine.u32(n), (1 << info.digits) + 1)
        return _cast(vals.astype(np.int64), info)
    return _mod(engine.u32(n), int(info.highest) + 1).astype(dt)
