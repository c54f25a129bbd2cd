"""The accumulation order of PyTorch's CPU matrix product (MKL's sgemm/dgemm), where known.

PyTorch 2.13's CPU build hands ``mm``/``matmul``/``addmm``/``linear`` to Intel MKL's
``sgemm``, whose kernels are not published and are chosen per CPU.  Measured against
PyTorch 2.13 on an AMD EPYC with AVX-512 (the machine this project is tested on), for
``C = A @ B`` with A m x k and B k x n (PyTorch's shapes):

* B stored row-major, and m == 1, or m <= 3 with n >= 12, or n in {2, 3, 4, 8}: every
  output is ``((0 + a0*b0) + a1*b1) + ...``, one rounding per multiply and per add (no
  fused multiply-add), whatever k.
* B transposed (``linear``'s weight) with n < 12: the same unfused sums when k <= 3, or
  k <= 7 and n in {2, 3} (or n = 1 with m <= 3).
* n = 1 and A transposed (B a column): unfused sums in k order, whatever m.
* n = 1 and m a multiple of 4 (A row-major): rounded products, a short prefix summed in
  order, then four stride-4 lanes combined as (l0 + l2) + (l1 + l3) (``_dot4``).
* B transposed, n in {2, 3}, m >= 2, k a multiple of 4: eight lanes by halves, then the
  leftover four in order (``_dot8``).
* n >= 12 and m a multiple of 4 or at least 12 (B in either layout): fused multiply-adds
  in k order, in blocks of k: one block when k <= 192, halves of ``k // 2`` (and a
  leftover) when 192 < k < 384, blocks of 192 beyond; the block sums are added left to
  right.  With a bias (``addmm``), C starts from the bias and each block sum is added.
* other shapes (n = 1 with m not a multiple of 4, n in 5..7 and 9..11, other small n with
  a transposed B, the leftover rows of 5..11-row products): orders not worked out; NumPy's own product is
  used (it agrees on most, not all, elements).

float64 (MKL's dgemm), measured on the same machine for k <= 128 (beyond, NumPy's product):

* m a multiple of 4: the columns in whole panels of 12 take fused multiply-adds in k
  order, from the bias (addmm) or 0; with B row-major the other columns take unfused sums
  in k order from the bias; with B transposed (``linear``) they take two running sums of
  rounded products (even and odd k) added together, then to the bias (k even, and a
  multiple of 4 leftover columns; otherwise not worked out);
* m < 4 or fewer than 12 columns, B row-major: unfused sums in k order;
* not worked out (NumPy's product): an odd column count below 12, other row counts with
  B transposed or with 12 or more columns, a 1 x 1 result, both operands transposed with
  leftover columns.

Work is bounded: above ``MAX_WORK`` multiply-adds the fast NumPy product is used.
"""

from __future__ import annotations

import numpy as np

from gradshell.core.fma import fma64, midpoint_mask
from gradshell.core.kernels.fp32 import fma

MAX_WORK = 1 << 24  # m*n*k beyond which the exact product would take seconds
_NAIVE_N = frozenset({2, 3, 4, 8})
_KC = 192  # MKL's k-block on this machine
_KC64 = 128  # float64: the longest k measured without a k-block showing


def k_blocks(k: int) -> list[tuple[int, int]]:
    """MKL's split of the k range into blocks (start, stop), as measured."""
    if k <= _KC:
        return [(0, k)]
    kc = k // 2 if k < 2 * _KC else _KC
    return [(j, min(k, j + kc)) for j in range(0, k, kc)]


def _unfused(a: np.ndarray, b: np.ndarray, start=None) -> np.ndarray:
    acc = np.zeros((a.shape[0], b.shape[1]), a.dtype) if start is None else start.copy()
    for i in range(a.shape[1]):
        acc += a[:, i, None] * b[None, i, :]
    return acc


def _fused_chain(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """acc = fma(a[:, i], b[i, :], acc) for i in order, starting from 0.

    Each step rounds once: the float32 product is exact in float64, so one float64
    add rounds there and the cast rounds to float32; only float64 sums lying exactly
    halfway between two float32s can double-round, and those go through the exact FMA.
    """
    m, n = a.shape[0], b.shape[1]
    acc = np.zeros((m, n), np.float32)
    a64 = a.astype(np.float64)
    s = np.empty((m, n), np.float64)
    for i in range(a.shape[1]):
        np.multiply(a64[:, i, None], b[None, i, :], out=s)
        s += acc
        mid = midpoint_mask(s)
        with np.errstate(over="ignore"):
            new = s.astype(np.float32)
        if mid.any() or not np.isfinite(new).all() or (np.abs(new) < 1.2e-38).any():
            new = fma(a[:, i, None], b[None, i, :], acc)
        acc = new
    return acc


def _dot4(a: np.ndarray, w: np.ndarray) -> np.ndarray:
    """a @ w for a one-column product (m a multiple of 4): the products rounded, the first
    r = k - 4*floor((k-1)/4) summed in order, then four lanes over the rest with stride 4
    (lane 0 starting from that prefix), combined as (l0 + l2) + (l1 + l3)."""
    p = a * w[None, :]
    k = p.shape[1]
    s = p[:, 0].copy()
    if k <= 4:
        for j in range(1, k):
            s += p[:, j]
        return s
    r = k - 4 * ((k - 1) // 4)
    for j in range(1, r):
        s += p[:, j]
    lanes = []
    for lane in range(4):
        acc = s + p[:, r] if lane == 0 else p[:, r + lane].copy()
        for t in range(r + lane + 4, k, 4):
            acc += p[:, t]
        lanes.append(acc)
    return (lanes[0] + lanes[2]) + (lanes[1] + lanes[3])


def _dot8(a: np.ndarray, w: np.ndarray) -> np.ndarray:
    """a @ w for linear's transposed weight with 2-3 outputs (k a multiple of 4): eight
    lanes of rounded products over the full 8-blocks, combined by halves
    ((l0+l4)+(l2+l6))+((l1+l5)+(l3+l7)), then the leftover products in order."""
    k = a.shape[1]
    nb = k // 8 * 8
    acc = np.zeros((a.shape[0], 8), np.float32)
    for j in range(0, nb, 8):
        acc += a[:, j : j + 8] * w[j : j + 8]
    s = ((acc[:, 0] + acc[:, 4]) + (acc[:, 2] + acc[:, 6])) + (
        (acc[:, 1] + acc[:, 5]) + (acc[:, 3] + acc[:, 7])
    )
    for j in range(nb, k):
        s += a[:, j] * w[j]
    return s


def _columns(fn, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    w = np.ascontiguousarray(b.T)
    return np.stack([fn(a, w[c]) for c in range(w.shape[0])], axis=1)


def _transposed(x: np.ndarray) -> bool:
    return x.flags.f_contiguous and not x.flags.c_contiguous


def _product_parts(a: np.ndarray, b: np.ndarray):
    """The product as (rows, partial sums to add in order), or None where unknown."""
    m, k = a.shape
    n = b.shape[1]
    tb = _transposed(b)
    if not tb and (m == 1 or (m <= 3 and n >= 12) or n in _NAIVE_N):
        return [(slice(0, m), [_unfused(a, b)])]
    if tb and n < 12 and (k <= 3 or (k <= 7 and (n in (2, 3) or (n == 1 and m <= 3)))):
        return [(slice(0, m), [_unfused(a, b)])]
    if n == 1 and _transposed(a) and not tb:
        # a transposed A times one column (linear's weight gradient with one input
        # feature): sums of rounded products in k order, whatever m (measured)
        return [(slice(0, m), [_unfused(a, b)])]
    if n == 1 and m % 4 == 0 and not _transposed(a):
        return [(slice(0, m), [_columns(_dot4, a, b)])]
    if tb and n in (2, 3) and m >= 2 and k % 4 == 0:
        return [(slice(0, m), [_columns(_dot8, a, b)])]
    if n < 12 or m < 4 or (m < 12 and m % 4):
        return None  # small-n kernels of a transposed B, or leftover rows: not worked out
    blocks = [_fused_chain(a[:, j0:j1], b[j0:j1]) for j0, j1 in k_blocks(k)]
    return [(slice(0, m), blocks)]


def _fused_chain64(a: np.ndarray, b: np.ndarray, start=None) -> np.ndarray:
    """acc = fma(a[:, i], b[i, :], acc) in float64, for i in order, starting from `start`
    (0 when None)."""
    m, n = a.shape[0], b.shape[1]
    acc = np.zeros((m, n), np.float64) if start is None else start.copy()
    for i in range(a.shape[1]):
        acc = fma64(
            np.broadcast_to(a[:, i, None], (m, n)), np.broadcast_to(b[None, i, :], (m, n)), acc
        )
    return acc


def _two_lanes(a: np.ndarray, b: np.ndarray, start=None) -> np.ndarray:
    """a @ b as two running sums of rounded products (even and odd k), added at the end
    (k even), then `start` (None: nothing) added to them."""
    even = np.zeros((a.shape[0], b.shape[1]), a.dtype)
    odd = np.zeros_like(even)
    for i in range(0, a.shape[1], 2):
        even += a[:, i, None] * b[None, i, :]
        odd += a[:, i + 1, None] * b[None, i + 1, :]
    return even + odd if start is None else start + (even + odd)


def _product64(a: np.ndarray, b: np.ndarray, bias=None) -> np.ndarray | None:
    """MKL's float64 product where its order was measured (module docstring), else None."""
    m, k = a.shape
    n = b.shape[1]
    if k > _KC64:
        return None
    panels = n // 12 * 12 if m % 4 == 0 else 0
    if n % 2 and m >= 2 and (n > 1 or not _transposed(a)) and (m % 4 or n < 12):
        return None  # an odd column count: its first column takes another kernel
    if m == 1 and n == 1:
        return None  # a dot product: the layout PyTorch passes depends on strides NumPy hides
    if _transposed(b):
        if m % 4 or (n > panels and (k % 2 or (n - panels) % 4 or _transposed(a))):
            return None
        rest = _two_lanes
    else:
        if m % 4 and m > 4 and n >= 12:
            return None  # the leftover rows of the 12-column panels: not worked out
        rest = _unfused
    out = np.empty((m, n), np.float64)
    c = None if bias is None else np.broadcast_to(np.asarray(bias, np.float64), (m, n))
    if panels:
        out[:, :panels] = _fused_chain64(a, b[:, :panels], None if c is None else c[:, :panels])
    if panels < n:
        out[:, panels:] = rest(a, b[:, panels:], None if c is None else c[:, panels:])
    return out


def dgemm(bias, a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """PyTorch's float64 ``bias + a @ b``, or None where the order is unknown: MKL's
    accumulators start from the bias."""
    if not _supported(a, b, np.float64):
        return None
    with np.errstate(all="ignore"):
        return _product64(a, b, bias)


def _supported(a: np.ndarray, b: np.ndarray, dtype=np.float32) -> bool:
    if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
        return False
    if a.dtype != dtype or b.dtype != dtype or a.ndim != 2 or b.ndim != 2:
        return False
    m, k = a.shape
    n = b.shape[1]
    return k > 1 and m > 0 and n > 0 and m * n * k <= MAX_WORK


def addmm(bias, a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """PyTorch's float32 ``bias + a @ b`` (``addmm`` with alpha = beta = 1, what ``linear``
    runs), or None where the order is unknown.  `bias` broadcasts to the product (None: 0).

    MKL starts C from the bias and adds each k-block's sum to it in turn.
    """
    if not _supported(a, b):
        return None
    with np.errstate(all="ignore"):
        parts = _product_parts(a, b)
        if parts is None:
            return None
        out = np.empty((a.shape[0], b.shape[1]), np.float32)
        full = None if bias is None else np.broadcast_to(np.asarray(bias, np.float32), out.shape)
        for rows, blocks in parts:
            acc = blocks[0] if full is None else full[rows] + blocks[0]
            for blk in blocks[1:]:
                acc = acc + blk
            out[rows] = acc
    return out


def mm(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """PyTorch's ``a @ b`` for 2-D float32/float64 NumPy arrays, or None where the order is
    unknown."""
    if isinstance(a, np.ndarray) and a.dtype == np.float64:
        return dgemm(None, a, b)
    return addmm(None, a, b)
