"""``Generator``: a CPU random generator that reproduces ``torch.Generator`` bit for bit.

Every sampler returns a new C-contiguous NumPy array of the requested shape whose elements,
read in C order, are what PyTorch writes in the target tensor's *memory* order; for a
non-contiguous target the torch layer must scatter them in memory order (and pass
``contiguous=False`` to the normal samplers, which changes PyTorch's algorithm).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from . import _discrete, _ints, _normal, _perm, _uniform
from ._engine import Engine, pack_state, unpack_state

Shape = Sequence[int] | int
DEFAULT_SEED = 67280421310721  # what a fresh torch.Generator() reports as initial_seed()
_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
_U64 = 1 << 64


def _numel(shape: Sequence[int] | int) -> tuple[tuple[int, ...], int]:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    elif type(shape) is not tuple or not all(type(d) is int for d in shape):
        shape = tuple(int(d) for d in shape)
    n = math.prod(shape)
    if n <= 0 and any(d < 0 for d in shape):
        d = next(d for d in shape if d < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {d}: {list(shape)}")
    return shape, n


def _float_dtype(dtype, kernel: str) -> np.dtype:
    dt = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
    if dt not in _FLOATS:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{_discrete.torch_type_name(dt)}'"
        )
    return dt


def _fmt(x: float) -> str:
    return _discrete._fmt(x)


# dtype -> (lowest, max, C++ name, PyTorch name) for uniform_'s bound checks
_LIMITS = {
    np.dtype(dt): (float(np.finfo(dt).min), float(np.finfo(dt).max), ctype, name)
    for dt, ctype, name in (
        (np.float16, "c10::Half", "Half"),
        (np.float32, "float", "Float"),
        (np.float64, "double", "Double"),
    )
}


class Generator:
    """A PyTorch-compatible CPU generator (MT19937 plus PyTorch's sampling algorithms)."""

    def __init__(self, seed: int | None = None) -> None:
        """Create a generator seeded like ``torch.Generator()`` (or with ``seed``)."""
        self._engine = Engine()
        self._seed = 0
        self._normal_cache: float | None = None
        self._float_normal_cache: float | None = None
        self.manual_seed(DEFAULT_SEED if seed is None else seed)

    # -- seeding and state -----------------------------------------------------------------
    def manual_seed(self, seed: int) -> Generator:
        """Seed from a 64-bit value (negative values wrap); only the low 32 bits reach MT19937."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = int(seed)
        if not -(1 << 63) <= seed < _U64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed % _U64
        self._engine.seed32(self._seed & 0xFFFFFFFF)
        self._normal_cache = None
        self._float_normal_cache = None
        return self

    def seed(self) -> int:
        """Seed from a non-deterministic 64-bit value (as ``torch.seed()``) and return it."""
        value = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(value)
        return value

    def initial_seed(self) -> int:
        """The 64-bit seed last set (as ``torch.initial_seed()``)."""
        return self._seed

    def get_state(self) -> bytes:
        """The state in PyTorch's 5,056-byte layout (``torch.get_rng_state()`` bytes)."""
        key, left, next_ = self._engine.counters()
        return pack_state(
            self._seed, key, left, next_, self._normal_cache, self._float_normal_cache
        )

    def set_state(self, state: bytes | bytearray | memoryview | np.ndarray) -> Generator:
        """Load state bytes produced by ``get_state`` or by ``torch.get_rng_state()``."""
        if isinstance(state, np.ndarray):
            state = state.tobytes()
        state = bytes(state)
        seed, key, left, next_, normal, float_normal = unpack_state(state)
        self._engine.load(key, left, next_)
        self._seed = seed
        self._normal_cache = normal
        self._float_normal_cache = float_normal
        return self

    # -- uniform -----------------------------------------------------------------------------
    def rand(self, shape: Shape, dtype: DTypeLike = np.float32) -> np.ndarray:
        """``torch.rand(shape, dtype=...)``: uniforms in [0, 1)."""
        dt = _float_dtype(dtype, "check_uniform_bounds")
        shape, n = _numel(shape)
        if dt == np.float64:
            return _uniform.u53_from_u64(self._engine.u64(n)).reshape(shape)
        out = _uniform.u24_from_words(self._engine.u32(n))
        if dt == np.float16:
            out = out.astype(np.float16)
            out[out == 1] = 0  # a sample that rounds up to `to` becomes `from`
        return out.reshape(shape)

    def uniform(
        self, shape: Shape, low: float = 0.0, high: float = 1.0, dtype: DTypeLike = np.float32
    ) -> np.ndarray:
        """``Tensor.uniform_(low, high)`` (also ``nn.init.uniform_`` and friends)."""
        dt = _float_dtype(dtype, "check_uniform_bounds")
        shape, n = _numel(shape)
        low, high = float(low), float(high)
        lowest, highest, ctype, name = _LIMITS[dt]
        if not lowest <= low <= highest:
            raise RuntimeError(f"from is out of bounds for {ctype}")
        if not lowest <= high <= highest:
            raise RuntimeError(f"to is out of bounds for {ctype}")
        if not low <= high:
            raise RuntimeError(
                f"uniform_ expects to return a [from, to) range, but found from={_fmt(low)} "
                f"> to={_fmt(high)}"
            )
        if not high - low <= highest:
            raise RuntimeError(
                f"uniform_ expects to-from <= std::numeric_limits<{name}>::max(), but found "
                f"to={_fmt(high)} and from={_fmt(low)} which result in to-from to exceed the limit"
            )
        if dt == np.float64:
            out = _uniform.uniform_f64(self._engine, n, low, high)
            top, bottom = high, low
        else:
            out = _uniform.uniform_f32(self._engine, n, low, high)
            top, bottom = np.float32(high), np.float32(low)
            if dt == np.float16:
                out = out.astype(np.float16)
                top, bottom = np.float16(top), np.float16(bottom)
        # A sample that rounds up to `to` is replaced by `from`, keeping the range half-open.
        hit = out == top
        if hit.any():
            out[hit] = bottom
        return out.reshape(shape)

    # -- normal ------------------------------------------------------------------------------
    def randn(
        self, shape: Shape, dtype: DTypeLike = np.float32, contiguous: bool = True
    ) -> np.ndarray:
        """``torch.randn(shape, dtype=...)``."""
        return self.normal(shape, 0.0, 1.0, dtype, contiguous)

    def normal(
        self,
        shape: Shape,
        mean: float = 0.0,
        std: float = 1.0,
        dtype: DTypeLike = np.float32,
        contiguous: bool = True,
    ) -> np.ndarray:
        """``Tensor.normal_(mean, std)`` / ``torch.normal(mean, std, size)``.

        ``contiguous=False`` selects PyTorch's path for a non-contiguous target tensor.
        """
        dt = _float_dtype(dtype, "normal_kernel_cpu")
        shape, n = _numel(shape)
        mean, std = float(mean), float(std)
        if not std >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
        if n >= 16 and contiguous:
            if dt == np.float32:
                out = _normal.fill_f32(self._engine, n, mean, std)
            elif dt == np.float64:
                out = _normal.fill_f64(self._engine, n, mean, std)
            else:
                out = _normal.fill_f16(self._engine, n, mean, std)
        else:
            vals, self._normal_cache = _normal.serial(
                self._engine, self._normal_cache, n, mean, std
            )
            out = _discrete.cast_float(vals, dt)
        return out.reshape(shape)

    def normal_tensor(
        self, mean: np.ndarray | float, std: np.ndarray | float, dtype: DTypeLike = None
    ) -> np.ndarray:
        """``torch.normal(mean, std)`` where ``mean`` and/or ``std`` are arrays.

        PyTorch fills the broadcast output with ``normal_(0, 1)`` and then computes
        ``out * std + mean`` with two roundings; with an array ``mean`` and a float ``std``
        it fills with ``normal_(0, std)`` and adds ``mean``.  ``dtype`` defaults to the
        promoted dtype of the array arguments.
        """
        mean_is_arr = isinstance(mean, np.ndarray)
        std_is_arr = isinstance(std, np.ndarray)
        if not (mean_is_arr or std_is_arr):
            raise TypeError("normal_tensor needs an array mean or std; use normal() for floats")
        arrays = [a for a in (mean, std) if isinstance(a, np.ndarray)]
        dt = np.dtype(dtype) if dtype is not None else np.result_type(*arrays)
        dt = _float_dtype(dt, "normal_kernel_cpu")
        if std_is_arr:
            if std.size and not np.all(std >= 0):
                raise RuntimeError("normal expects all elements of std >= 0.0")
        elif not float(std) >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(float(std))}")
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
        if std_is_arr:
            z = self.normal(shape, 0.0, 1.0, dt)
            return (
                z * std.astype(dt) + (mean.astype(dt) if mean_is_arr else dt.type(mean))
            ).astype(dt)
        z = self.normal(shape, 0.0, float(std), dt)
        return (z + mean.astype(dt)).astype(dt)

    def exponential(
        self, shape: Shape, lambd: float = 1.0, dtype: DTypeLike = np.float32
    ) -> np.ndarray:
        """``Tensor.exponential_(lambd)``."""
        dt = _float_dtype(dtype, "exponential_cpu")
        shape, n = _numel(shape)
        vals = _discrete.exponential(self._engine, n, float(lambd))
        return _discrete.cast_float(vals, dt).reshape(shape)

    # -- integers ----------------------------------------------------------------------------
    def randint(self, shape: Shape, low: int, high: int, dtype: DTypeLike = np.int64) -> np.ndarray:
        """``torch.randint(low, high, shape, dtype=...)`` (same draws as ``random_(low, high)``)."""
        shape, n = _numel(shape)
        info, span, frm = _ints.plan_from_to(dtype, low, high)
        return _ints.draw_from_to(self._engine, n, span, frm, info).reshape(shape)

    def random_(
        self,
        shape: Shape,
        dtype: DTypeLike = np.int64,
        from_: int | None = None,
        to: int | None = None,
    ) -> np.ndarray:
        """``Tensor.random_()``, ``random_(to)`` (pass ``to`` only) and ``random_(from, to)``.

        ``random_(from, None)`` (``from_`` without ``to``) draws from ``[from, max]``.
        """
        shape, n = _numel(shape)
        if from_ is None and to is None:
            info = _ints.dtype_info(dtype)
            return _ints.draw_default(self._engine, n, info).reshape(shape)
        if to is None:
            info, span, frm = _ints.plan_from(dtype, from_)
        else:
            info, span, frm = _ints.plan_from_to(dtype, 0 if from_ is None else from_, to)
        return _ints.draw_from_to(self._engine, n, span, frm, info).reshape(shape)

    def randperm(self, n: int, dtype: DTypeLike = np.int64) -> np.ndarray:
        """``torch.randperm(n, dtype=...)``."""
        n = int(n)
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
        dt = np.dtype(dtype)
        if dt == np.bool_ or dt.kind not in "iuf":
            raise NotImplementedError(
                f"\"randperm\" not implemented for '{_discrete.torch_type_name(dt)}'"
            )
        if dt.kind == "f":
            digits = {2: 11, 4: 24, 8: 53}[dt.itemsize]
            if n > (1 << digits) + 1:
                name = _discrete.torch_type_name(dt)
                limit = "2049" if digits == 11 else f"2^{digits}+1"
                raise RuntimeError(f"n cannot be greater than {limit} for {name} type.")
        elif n > 0 and n - 1 > np.iinfo(dt).max:
            raise RuntimeError(f"value cannot be converted to type {dt.name}_t without overflow")
        return _perm.randperm(self._engine, n).astype(dt)

    # -- bernoulli, multinomial, dropout -----------------------------------------------------
    def bernoulli(self, p: ArrayLike) -> np.ndarray:
        """``torch.bernoulli(p)``: 0/1 in p's dtype, drawing in p's precision."""
        p = np.asarray(p)
        return _discrete.bernoulli_tensor(self._engine, p).astype(p.dtype)

    def bernoulli_(
        self, shape: Shape, p: float | np.ndarray, dtype: DTypeLike = np.float32
    ) -> np.ndarray:
        """``Tensor.bernoulli_(p)`` on a tensor of ``shape``/``dtype``; ``p`` float or array.

        A float ``p`` (also ``torch.bernoulli(x, p=...)``) draws one 53-bit double per
        element; an array ``p`` is broadcast to ``shape`` and draws in its own precision.
        """
        shape, n = _numel(shape)
        dt = np.dtype(dtype)
        if isinstance(p, np.ndarray):
            try:
                pb = np.broadcast_to(p, shape)
            except ValueError:
                raise RuntimeError(
                    f"The expanded size of the tensor ({shape[-1] if shape else 1}) must match "
                    f"the existing size ({p.shape[-1] if p.ndim else 1}) at non-singleton "
                    f"dimension {max(len(shape) - 1, 0)}.  Target sizes: {list(shape)}.  "
                    f"Tensor sizes: {list(p.shape)}"
                ) from None
            return _discrete.bernoulli_tensor(self._engine, np.ascontiguousarray(pb)).astype(dt)
        return _discrete.bernoulli_scalar(self._engine, n, float(p)).astype(dt).reshape(shape)

    def multinomial(
        self, probs: np.ndarray, num_samples: int, replacement: bool = False
    ) -> np.ndarray:
        """``torch.multinomial(probs, num_samples, replacement)``: int64 category indices."""
        return _discrete.multinomial(self._engine, probs, num_samples, bool(replacement))

    def dropout_mask(self, shape: Shape, p: float, dtype: DTypeLike = np.float32) -> np.ndarray:
        """The multiplier ``F.dropout(x, p, training=True)`` applies to ``x``.

        PyTorch's CPU dropout draws ``bernoulli_(1 - p)`` into a tensor like ``x`` and divides
        it by ``1 - p`` (in x's dtype); ``p == 0`` and ``p == 1`` draw nothing (the result is
        ``x`` itself, or ``x * 0``).  Returns ones for ``p == 0`` and zeros for ``p == 1``.
        """
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        shape, n = _numel(shape)
        dt = _float_dtype(dtype, "bernoulli_scalar_cpu_")
        if p == 0.0:
            return np.ones(shape, dtype=dt)
        if p == 1.0:
            return np.zeros(shape, dtype=dt)
        keep = _discrete.bernoulli_scalar(self._engine, n, 1.0 - p)
        if dt == np.float16:
            # half divides by a scalar in float and rounds once to half
            mask = (keep.astype(np.float32) / np.float32(1.0 - p)).astype(np.float16)
        else:
            mask = keep.astype(dt) / dt.type(1.0 - p)
        return mask.reshape(shape)


default_generator = Generator()
default_generator.seed()  # PyTorch seeds its default generator non-deterministically
