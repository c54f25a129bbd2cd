"""The MT19937 word stream behind a generator, and PyTorch's 5,056-byte state layout.

PyTorch's CPU generator is textbook MT19937 (``init_genrand`` seeding, Cokus-style twist,
standard tempering).  NumPy's ``MT19937`` bit generator runs the same recurrence, so once its
624-word key is set from ``init_genrand(seed & 0xffffffff)`` its ``random_raw`` words are
exactly PyTorch's 32-bit draws.  This module owns that bit generator and everything about
positions in the stream: how many words each draw consumes, where PyTorch's ``left``/``next``
counters stand, and the byte layout of ``torch.get_rng_state()``.
"""

from __future__ import annotations

import struct
from functools import lru_cache

import numpy as np

STATE_WORDS = 624
STATE_SIZE = 5056  # sizeof(CPUGeneratorImplState) in the x86-64 Linux wheel
# Offsets inside the state bytes: u64 seed, i32 left, i32 seeded, u64 next, 624 x u64 words,
# f64 normal_x, f64 normal_y, f64 normal_rho, i32 normal_is_valid, 4 padding bytes,
# f32 next_float_normal_sample, bool is_next_float_normal_sample_valid, 3 padding bytes.
_HEADER = struct.Struct("<QiiQ")
_WORDS_AT = _HEADER.size
_NORMAL_AT = _WORDS_AT + 8 * STATE_WORDS
_NORMAL = struct.Struct("<dddi")
_FLOAT_AT = _NORMAL_AT + _NORMAL.size + 4
_FLOAT = struct.Struct("<f?")

_U32 = np.uint64(32)


@lru_cache(maxsize=256)
def _init_genrand(seed32: int) -> bytes:
    # The standard Knuth-multiplier recurrence; cached because tests and lessons reseed
    # with the same few seeds over and over, and the loop costs ~0.1 ms.
    mt = [0] * STATE_WORDS
    x = mt[0] = seed32
    for i in range(1, STATE_WORDS):
        x = (1812433253 * (x ^ (x >> 30)) + i) & 0xFFFFFFFF
        mt[i] = x
    return np.array(mt, dtype=np.uint32).tobytes()


def temper(words: np.ndarray) -> np.ndarray:
    """Apply MT19937 output tempering to untempered 32-bit state words (uint32 in, uint32 out)."""
    y = words.astype(np.uint32)
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return y


def untemper(words: np.ndarray) -> np.ndarray:
    """Invert MT19937 tempering: tempered 32-bit outputs back to state words."""
    y = words.astype(np.uint32)
    y ^= y >> np.uint32(18)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    t = y
    for _ in range(4):  # y ^= (y << 7) & 0x9d2c5680, solved 7 bits at a time
        t = y ^ ((t << np.uint32(7)) & np.uint32(0x9D2C5680))
    y = t
    t = y
    for _ in range(2):  # y ^= y >> 11
        t = y ^ (t >> np.uint32(11))
    return t


class Engine:
    """An MT19937 word source positioned exactly like PyTorch's ``at::mt19937``.

    PyTorch counts ``left`` (draws until the next twist, plus one) and ``next`` (index of the
    next word) separately; NumPy keeps only ``pos``.  For the states PyTorch itself produces,
    ``left + next == 625`` or a fresh seed (``left=1, next=0``), and both map onto ``pos``.
    A state loaded with ``set_state`` may hold any other valid pair; then the words PyTorch
    will read before its next twist are served from ``_pending`` and NumPy waits at ``pos=624``
    with the same key, so that the twist that follows is the same one.

    A *lookahead* holds words already drawn from NumPy but not yet handed out, so that
    samplers can precompute per-word transforms in bulk (see ``lookahead``).  It always ends
    at a twist boundary, and every block inside it can be turned back into PyTorch's state
    words by untempering, so the state stays exact at every position.
    """

    __slots__ = (
        "_bg",
        "_np_gen",
        "_pending",
        "_pending_pos",
        "_pending_next",
        "_idle_next",
        "_la",
        "_la_pos",
        "_la_key0",
        "_la_pos0",
        "_la_idle0",
        "la_token",
        "la_cache",
    )

    def __init__(self) -> None:
        self._bg = np.random.MT19937(0)
        self._np_gen = np.random.Generator(self._bg)
        self._pending: np.ndarray | None = None
        self._pending_pos = 0
        self._pending_next = 0
        self._idle_next = 0
        self._la: np.ndarray | None = None
        self._la_pos = 0
        self._la_key0: np.ndarray | None = None
        self._la_pos0 = 0
        self._la_idle0 = 0
        self.la_token = 0
        self.la_cache: object = None  # samplers' per-word transforms of the lookahead

    # -- seeding and state -------------------------------------------------------------
    def seed32(self, seed32: int) -> None:
        """Reset to ``init_genrand(seed32)``, as ``manual_seed`` does with the low 32 bits."""
        key = np.frombuffer(_init_genrand(seed32), dtype=np.uint32)
        self._set_key(key, STATE_WORDS)
        self._pending = None
        self._la = None
        self._idle_next = 0

    def _set_key(self, key: np.ndarray, pos: int) -> None:
        self._bg.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}

    def counters(self) -> tuple[np.ndarray, int, int]:
        """Return (624 untwisted state words, PyTorch's ``left``, PyTorch's ``next``)."""
        if self._la is not None:
            key, pos, idle = self._la_state()
            if pos >= STATE_WORDS:
                return key, 1, idle
            return key, STATE_WORDS + 1 - pos, pos
        st = self._bg.state["state"]
        key, pos = st["key"], int(st["pos"])
        if self._pending is not None:
            left = len(self._pending) - self._pending_pos + 1
            return key, left, self._pending_next + self._pending_pos
        if pos >= STATE_WORDS:
            return key, 1, self._idle_next
        return key, STATE_WORDS + 1 - pos, pos

    def load(self, key: np.ndarray, left: int, next_: int) -> None:
        """Position the stream at PyTorch counters ``left``/``next`` over state words ``key``.

        Raises ``RuntimeError`` for the pairs PyTorch rejects and for those it accepts but
        whose next reads would run past the 624 words (undefined behaviour in PyTorch).
        """
        if not (1 <= left <= STATE_WORDS) or not (0 <= next_ <= STATE_WORDS):
            raise RuntimeError("Invalid mt19937 state")
        end = next_ + left - 1
        if end > STATE_WORDS:
            raise RuntimeError(
                f"Invalid mt19937 state: left={left} and next={next_} would read past the "
                f"{STATE_WORDS} state words before the next twist (undefined in PyTorch)"
            )
        key = np.ascontiguousarray(key, dtype=np.uint32)
        self._pending = None
        self._la = None
        if left == 1:
            self._set_key(key, STATE_WORDS)
            self._idle_next = next_
        elif end == STATE_WORDS:
            self._set_key(key, next_)
        else:
            self._set_key(key, STATE_WORDS)
            self._pending = temper(key[next_:end])
            self._pending_pos = 0
            self._pending_next = next_

    # -- drawing -------------------------------------------------------------------------
    def _take_pending(self, n: int) -> np.ndarray:
        pend = self._pending
        assert pend is not None
        start = self._pending_pos
        stop = min(start + n, len(pend))
        head = pend[start:stop].astype(np.uint64)
        if stop == len(pend):
            self._idle_next = self._pending_next + len(pend)
            self._pending = None
        else:
            self._pending_pos = stop
        if len(head) == n:
            return head
        self._idle_next = STATE_WORDS
        return np.concatenate((head, self._bg.random_raw(n - len(head))))

    # -- lookahead -----------------------------------------------------------------------
    def _la_state(self) -> tuple[np.ndarray, int, int]:
        # (state words, NumPy-style pos in 1..624, PyTorch's next when pos is 624) at the
        # current position inside the lookahead
        assert self._la is not None and self._la_key0 is not None
        c = self._la_pos
        if c == 0:
            return self._la_key0, self._la_pos0, self._la_idle0
        p = self._la_pos0 + c
        if p <= STATE_WORDS:
            return self._la_key0, p, STATE_WORDS
        block = (p - 1) // STATE_WORDS
        start = block * STATE_WORDS - self._la_pos0
        key = untemper(self._la[start : start + STATE_WORDS])
        return key, p - block * STATE_WORDS, STATE_WORDS

    def lookahead(self, need: int, chunk: int = 2048) -> tuple[np.ndarray, int] | None:
        """Buffer at least ``need`` upcoming words without consuming them.

        Returns ``(buffer, start)``: the next words are ``buffer[start:]``; consume them
        with the normal draw methods.  ``la_token`` changes whenever a new buffer is made.
        Returns ``None`` while a loaded state still serves words from ``_pending``.
        """
        if self._pending is not None:
            return None
        if self._la is not None and len(self._la) - self._la_pos >= need:
            return self._la, self._la_pos
        if self._la is not None:
            key0, pos0, idle0 = self._la_state()
            rest = self._la[self._la_pos :]
            np_pos = STATE_WORDS
        else:
            st = self._bg.state["state"]
            key0, pos0, idle0 = st["key"].astype(np.uint32), int(st["pos"]), self._idle_next
            rest = np.empty(0, dtype=np.uint32)
            np_pos = pos0
        draw = max(need - len(rest), chunk)
        draw += (-(np_pos + draw)) % STATE_WORDS  # end exactly at a twist boundary
        fresh = self._bg.random_raw(draw).astype(np.uint32)
        self._la = np.concatenate((rest, fresh)) if len(rest) else fresh
        self._la_pos = 0
        self._la_key0, self._la_pos0, self._la_idle0 = key0, pos0, idle0
        self.la_token += 1
        return self._la, 0

    def _take_la(self, n: int) -> np.ndarray:
        la = self._la
        assert la is not None
        start = self._la_pos
        stop = min(start + n, len(la))
        head = la[start:stop]
        if stop == len(la):
            self._la = None
            self._idle_next = STATE_WORDS
        else:
            self._la_pos = stop
        if len(head) == n:
            return head.astype(np.uint64)
        self._idle_next = STATE_WORDS
        return np.concatenate((head.astype(np.uint64), self._bg.random_raw(n - len(head))))

    def raw(self, n: int) -> np.ndarray:
        """Draw ``n`` 32-bit words, returned as a uint64 array (NumPy's native form)."""
        if self._la is not None:
            return self._take_la(n)
        if self._pending is not None:
            return self._take_pending(n)
        if n:
            self._idle_next = STATE_WORDS
        return self._bg.random_raw(n)

    def u32(self, n: int) -> np.ndarray:
        """Draw ``n`` 32-bit words as a uint32 array."""
        if self._la is not None and len(self._la) - self._la_pos >= n:
            start = self._la_pos
            self._la_pos += n
            out = self._la[start : self._la_pos]
            if self._la_pos == len(self._la):
                self._la = None
                self._idle_next = STATE_WORDS
            return out
        if self._pending is None and self._la is None and n > 4096:
            self._idle_next = STATE_WORDS
            # Full-range integers take NumPy's unmasked path: the raw words, but stored
            # as uint32 directly, which is faster to produce and to consume.
            return self._np_gen.integers(0, 1 << 32, size=n, dtype=np.uint32)
        return self.raw(n).astype(np.uint32)

    def u64(self, n: int) -> np.ndarray:
        """Draw ``n`` PyTorch ``random64()`` values: two words each, the first one high."""
        if self._pending is None and self._la is None and n > 2048:
            self._idle_next = STATE_WORDS
            # NumPy's MT19937 next64 is also (first << 32) | second.
            return self._np_gen.integers(0, 1 << 64, size=n, dtype=np.uint64)
        w = self.raw(2 * n)
        return (w[0::2] << _U32) | w[1::2]


def pack_state(
    seed: int,
    key: np.ndarray,
    left: int,
    next_: int,
    normal: float | None,
    float_normal: float | None,
) -> bytes:
    """Serialise a generator exactly as ``torch.get_rng_state()`` lays it out."""
    out = bytearray(STATE_SIZE)
    _HEADER.pack_into(out, 0, seed, left, 1, next_)
    out[_WORDS_AT:_NORMAL_AT] = np.asarray(key, dtype=np.uint64).tobytes()
    # PyTorch keeps only the cached sample itself (in normal_y); x and rho are written as 0.
    _NORMAL.pack_into(
        out, _NORMAL_AT, 0.0, 0.0 if normal is None else normal, 0.0, normal is not None
    )
    _FLOAT.pack_into(
        out, _FLOAT_AT, 0.0 if float_normal is None else float_normal, float_normal is not None
    )
    return bytes(out)


def unpack_state(
    state: bytes,
) -> tuple[int, np.ndarray, int, int, float | None, float | None]:
    """Parse state bytes into (seed, key, left, next, cached normal, cached float normal)."""
    if len(state) != STATE_SIZE:
        raise RuntimeError(
            f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found the input "
            f"RNG state size to be {len(state)}"
        )
    seed, left, seeded, next_ = _HEADER.unpack_from(state, 0)
    if seeded != 1:
        raise RuntimeError("Invalid mt19937 state")
    # The engine stores 32-bit words; PyTorch truncates the u64 slots when it loads them.
    key = np.frombuffer(state, dtype="<u8", count=STATE_WORDS, offset=_WORDS_AT).astype(np.uint32)
    _, normal_y, _, valid = _NORMAL.unpack_from(state, _NORMAL_AT)
    fval, fvalid = _FLOAT.unpack_from(state, _FLOAT_AT)
    return (
        seed,
        key,
        left,
        next_,
        normal_y if valid else None,
        fval if fvalid else None,
    )
