"""Float sums that round exactly as PyTorch's CPU kernels round them.

PyTorch 2.x on x86-64 neither adds left to right nor pairwise as NumPy does, so a float32
``sum`` or ``mean`` can differ from NumPy's in the last bit, and printing shows it
(``tensor(-2.0000)`` against ``tensor(-2.)``).  This module reproduces the order of its
additions (ATen's ``cascade_sum`` in ``native/cpu/SumKernel.cpp``, driven by
``TensorIterator``), with NumPy doing the arithmetic in whole arrays:

* The reduction runs over a ``TensorIterator``: the dimensions are sorted (reduced ones
  innermost, then by stride), neighbours that are contiguous in memory are merged, and a
  2-D loop is called on the two innermost dimensions for every index of the others.  The
  output starts at 0 and each loop call adds its row sums into it.
* Each row is summed by one of three schemes, chosen from the strides and sizes of the 2-D
  loop: a cascade of four levels of sequential sums over blocks of ``2**max(4, ceil(log2
  n)/4)`` items; four interleaved cascades combined at the end; or, for a contiguous row,
  those four cascades over 32-byte vectors whose lanes are added up at the end.
  The vectors are 32 bytes even on AVX-512 machines: PyTorch dispatches its sum kernels
  to the AVX2 build there.
* Above 32768 elements the work is split across ``get_num_threads()`` OpenMP threads,
  which changes the order again; this module follows the same split.
* float16 is added in float32 (and ``mean`` of float16 sums in float32 and divides there).
* ``mean`` is that sum divided by the element count.

The other reductions that feed printed values follow their own kernels the same way:
``linalg.vector_norm`` (a vectorised p=2 kernel over a contiguous last dim, whose tail the
compiler squares four at a time and then fuses into FMAs; running sums elsewhere, libm's
pow for other p), ``var``/``std`` (two passes in double for one output, Welford's updates
in double otherwise), ``prod`` (four vector accumulators), ``cumsum``/``cumprod`` (in the
CPU accumulate type) and ``nll_loss`` (its own eight-level cascade).

Only NumPy arrays get this treatment, and that path works on NumPy's strides and buffers
directly; other array modules (CuPy on a GPU, where matching PyTorch's CPU bits is not a
goal) use their own ``sum``.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from gradshell.core.device import array_module

# The thread count lives in the core (its kernels split work the same way); torch.set_num_threads
# and the tests reach it through this module.
from gradshell.core.threads import GRAIN_SIZE, _chunks, get_num_threads, set_num_threads  # noqa: F401

_VEC_BYTES = 32  # width of one AVX2 register
_ACC = {np.dtype(np.float16): np.dtype(np.float32)}  # float16 is accumulated in float32
# Sequential sums run as one add.accumulate over few columns or long runs, else as a loop
# of in-place vector adds (accumulate walks many wide columns slowly)
_SEQ_LOOP_MAX = 256
_ACCUMULATE_COLS = 64


# -- sequential sums ---------------------------------------------------------------------
def _seq(a, axis: int = 0):
    """((0 + a[0]) + a[1]) + ... along `axis` (0 or 1), rounding after every addition.

    Starting from +0 matters only for the sign of a zero result (-0 + +0 is +0)."""
    n = a.shape[axis]
    xp = array_module(a)
    if n == 0:
        return xp.zeros(a.shape[:axis] + a.shape[axis + 1 :], a.dtype)
    zero = a.dtype.type(0)
    if n > 2 and (a.size // n <= _ACCUMULATE_COLS or n > _SEQ_LOOP_MAX):
        # add.accumulate is strictly sequential, and one call: cheaper than a loop when the
        # columns are few or the run is long. Its first term is a[0] rather than 0 + a[0],
        # which differs only when every term is -0: one more +0 settles that
        last = xp.add.accumulate(a, axis=axis)
        return (last[-1] if axis == 0 else last[:, -1]) + zero
    if axis == 0:
        acc = a[0] + zero
        if n > 1 and not isinstance(acc, xp.ndarray):
            acc = xp.asarray(acc)  # a scalar (from a 1-D `a`) cannot be added into in place
        for t in range(1, n):
            xp.add(acc, a[t], out=acc)
        return acc
    acc = a[:, 0] + zero
    for t in range(1, n):
        xp.add(acc, a[:, t], out=acc)
    return acc


def _ceil_log2(x: int) -> int:
    return 1 if x <= 2 else (x - 1).bit_length()


def _cascade(x):
    """ATen's multi_row_sum over axis 0 of `x` (each column on its own): sums of blocks of
    `s` items feed a sum of `s` block sums, which feeds a sum of `s` of those, which feeds a
    running total; whatever is left over is added at the end, smallest level first."""
    n = x.shape[0]
    cols = x.shape[1:]
    s = 1 << max(4, _ceil_log2(n) // 4)
    nb = n // s
    levels = []  # acc[0] (the tail), acc[1], acc[2], acc[3] — None where nothing is left
    if nb:
        block = _seq(x[: nb * s].reshape((nb, s) + cols), 1)
        n1 = nb // s
        l1 = _seq(block[: n1 * s].reshape((n1, s) + cols), 1) if n1 else None
        n2 = n1 // s
        l2 = _seq(l1[: n2 * s].reshape((n2, s) + cols), 1) if n2 else None
        tail = x[nb * s :]
        levels = [
            _seq(tail) if len(tail) else None,
            _seq(block[n1 * s :]) if nb > n1 * s else None,
            _seq(l1[n2 * s :]) if n1 > n2 * s else None,
            _seq(l2) if n2 else None,
        ]
    else:
        levels = [_seq(x)]
    total = None
    for lev in levels:
        if lev is not None:
            total = lev if total is None else total + lev
    if total is None:
        return array_module(x).zeros(cols, x.dtype)
    if any(lev is None for lev in levels):
        total = total + x.dtype.type(0)  # the +0 those empty accumulators would have added
    return total


def _cascade_ilp(x):
    """ATen's row_sum: four interleaved cascades (items 0, 4, 8, ...; 1, 5, 9, ...; ...), the
    last n % 4 items added to the first, then the four totals added in order."""
    n = x.shape[0]
    q = n // 4
    if q == 0:
        return _seq(x)
    cols = x.shape[1:]
    parts = _cascade(x[: 4 * q].reshape((q, 4) + cols))
    if n > 4 * q:
        xp = array_module(x)
        parts = xp.concatenate([parts[:1], x[4 * q :], parts[1:]])
    # p0 (+ the leftover items) + p1 + p2 + p3, in that order; p0 is never -0, so the +0
    # the sequential sum starts from changes nothing
    return _seq(parts)


def _vec_inner(x, acc_dtype):
    """ATen's vectorized_inner_sum over axis 0 of `x` (rows contiguous in memory): the
    row read as 32-byte vectors summed by four interleaved cascades lane by lane, the items
    after the last whole vector summed alone, then the lanes added to that one by one."""
    n = x.shape[0]
    cols = x.shape[1:]
    width = _VEC_BYTES // x.dtype.itemsize  # items per vector load
    lanes = _VEC_BYTES // acc_dtype.itemsize  # accumulator lanes
    nv = n // width
    vecs = x[: nv * width].reshape((nv, width) + cols)
    if width != lanes:
        # float16: 16 halves load as two float vectors (items 0-7 and 8-15), added lane-wise
        vecs = vecs.astype(acc_dtype)
        vecs = vecs[:, :lanes] + vecs[:, lanes:]
    acc = _cascade_ilp(vecs)
    if n > nv * width:
        xp = array_module(x)
        acc = xp.concatenate([x[nv * width :].astype(acc_dtype, copy=False), acc])
    # 0, plus the leftover items, plus the lanes one by one
    return _seq(acc)


def _rows(x, s0: int, s1: int, acc_dtype):
    """One call of cascade_sum's 2-D loop, for a batch of calls at once.

    `x` is (size0, size1, ...): axis 0 is summed, axis 1 holds the loop's rows, the other
    axes are further calls with the same geometry; `s0`, `s1` are the strides (in items) of
    axes 0 and 1.  Returns the row sums, shaped (size1, ...), in the accumulator dtype."""
    size0, size1 = x.shape[0], x.shape[1]
    width = _VEC_BYTES // x.dtype.itemsize
    if s0 == 1 and size0 >= width:  # contiguous inner reduction
        return _vec_inner(x, acc_dtype)
    xa = x.astype(acc_dtype, copy=False)
    if s1 == 1 and size1 >= width:  # contiguous outer reduction: 4 vectors of columns at once
        block = 4 * (_VEC_BYTES // acc_dtype.itemsize)
        plain = size1 // block * block
    elif s0 < s1:  # strided inner reduction
        return _cascade_ilp(xa)
    else:  # strided outer reduction: four rows at once
        plain = size1 // 4 * 4
    if plain == size1:
        return _cascade(xa)
    if plain == 0:
        return _cascade_ilp(xa)
    xp = array_module(x)
    return xp.concatenate([_cascade(xa[:, :plain]), _cascade_ilp(xa[:, plain:])], axis=0)


# -- the TensorIterator ------------------------------------------------------------------
def _contiguous_strides(shape) -> list[int]:
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * max(shape[d + 1], 1)
    return strides


def _torch_strides(a) -> list[int]:
    """`a`'s strides in items as the PyTorch tensor would have them.

    The strides of size-1 dims never address memory but do steer TensorIterator's sort of
    the dims, and NumPy and PyTorch set them differently (x[:, None] has stride 0 in NumPy,
    unsqueeze gives the next dim's stride times its size in PyTorch). They are taken to be
    what unsqueeze gives; PyTorch tensors whose size-1 dims were permuted after the
    unsqueeze can therefore add up in another order."""
    shape = a.shape
    strides = [s // a.itemsize for s in a.strides]
    for d in range(len(shape) - 1, -1, -1):
        if shape[d] == 1:
            strides[d] = strides[d + 1] * shape[d + 1] if d + 1 < len(shape) else 1
    return strides


def _iterator(shape, in_strides, dims: tuple, keepdim: bool):
    """The reduction's iteration space as ATen's TensorIterator lays it out: dims innermost
    first, each a [size, input stride, output stride] (strides in items)."""
    nd = len(shape)
    reduced = set(dims)
    out_shape = [1 if d in reduced else shape[d] for d in range(nd)]
    if keepdim:
        out_str = _contiguous_strides(out_shape)
    else:
        kept = [shape[d] for d in range(nd) if d not in reduced]
        it = iter(_contiguous_strides(kept))
        out_str = [0 if d in reduced else next(it) for d in range(nd)]
    for d in range(nd):  # a size-1 output dim broadcast over the input has stride 0
        if out_shape[d] == 1 and shape[d] != 1:
            out_str[d] = 0
    ops = (out_str, list(in_strides))

    def should_swap(d0: int, d1: int) -> int:
        for k, st in enumerate(ops):
            a, b = st[d0], st[d1]
            if k == 0 and (a == 0) != (b == 0):  # reduced dims go innermost
                return 1 if b == 0 else -1
            if a == 0 or b == 0:
                continue
            if a != b:
                return -1 if a < b else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(nd - 1, -1, -1))
    for i in range(1, nd):  # ATen's insertion sort, ambiguous comparisons skipped
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    dims_ = [[shape[p], in_strides[p], out_str[p]] for p in perm]
    # coalesce neighbours that are one block of memory for both operands
    merged: list[list[int]] = []
    for dim in dims_:
        if merged:
            prev = merged[-1]
            if (
                prev[0] == 1
                or dim[0] == 1
                or (prev[0] * prev[1] == dim[1] and prev[0] * prev[2] == dim[2])
            ):
                if prev[0] == 1:
                    prev[1], prev[2] = dim[1], dim[2]
                prev[0] *= dim[0]
                continue
        merged.append(list(dim))
    return merged


def _view(flat, offset: int, shape, strides):
    """A strided view into the 1-D array `flat` (strides in items) from item `offset`
    (np.ndarray over its buffer: much cheaper than as_strided)."""
    item = flat.itemsize
    return np.ndarray(
        tuple(shape),
        flat.dtype,
        buffer=flat,
        offset=offset * item,
        strides=tuple(s * item for s in strides),
    )


def _flat(a):
    """`a`'s memory as a 1-D array from its first item (strides are non-negative)."""
    if a.flags.c_contiguous or a.flags.f_contiguous:
        return a.reshape(-1, order="A")
    extent = 1 + sum((n - 1) * s for n, s in zip(a.shape, a.strides, strict=True)) // a.itemsize
    return np.lib.stride_tricks.as_strided(a, (extent,), (a.itemsize,), writeable=False)


def _store(contribs, out_dtype):
    """The output after `contribs` (axis 0, in order) were added into it from 0, each sum
    rounded to the output dtype as ATen's `*out += value` does."""
    if out_dtype == contribs.dtype:
        return _seq(contribs)
    out = np.zeros(contribs.shape[1:], out_dtype)
    for c in contribs:
        out = (out.astype(contribs.dtype) + c).astype(out_dtype)
    return out


def _loop_dims(it):
    """The iterator padded to two dims, as ATen hands the 2-D loop its strides."""
    it = [list(d) for d in it]
    while len(it) < 2:
        it.append([1, 0, 0])
    return it


def _run(flat, in_off: int, out, out_off: int, it, acc_dtype) -> None:
    """serial_for_each over the whole of `it`: every loop call, batched, written to `out`."""
    it = _loop_dims(it)
    (n0, s0, o0), (n1, s1, o1) = it[0], it[1]
    if o0 != 0 and o1 == 0:  # the loop moves the reduced dim first
        (n0, s0, o0), (n1, s1, o1) = (n1, s1, o1), (n0, s0, o0)
    outer = it[2:]
    shape = [n0, n1] + [d[0] for d in outer]
    x = _view(flat, in_off, shape, [s0, s1] + [d[1] for d in outer])
    if o0 != 0:  # no reduced dim left: each output is 0 + its one input
        r = x.astype(acc_dtype) + acc_dtype.type(0)
        ostr = [o0, o1] + [d[2] for d in outer]
        axes = list(range(len(shape)))
    else:
        r = _rows(x, s0, s1, acc_dtype)
        ostr = [o1] + [d[2] for d in outer]
        axes = list(range(r.ndim))
    red = [a for a in axes if ostr[a] == 0]
    keep = [a for a in axes if ostr[a] != 0]
    keep_shape = [r.shape[a] for a in keep]
    # the loop visits axis 0 fastest, so the contributions to one output come in that order
    r = r.transpose(red[::-1] + keep).reshape([-1] + keep_shape)
    dst = _view(out, out_off, keep_shape, [ostr[a] for a in keep])
    dst[...] = _store(r, out.dtype)


def _range_contribs(flat, it, begin: int, end: int, acc_dtype):
    """Row sums, in order, of serial_for_each over the linear range [begin, end) of an
    iterator whose every dim is reduced (one output)."""
    it = _loop_dims(it)
    shape = [d[0] for d in it]
    strides = [d[1] for d in it]
    n0, n1 = shape[0], shape[1]
    s0, s1 = strides[0], strides[1]
    values = []
    rem = begin
    for n in shape:
        values.append(rem % n)
        rem //= n
    out = []
    offset = begin
    xp = array_module(flat)
    while offset < end:
        if values[0] == 0 and values[1] == 0 and len(shape) > 2 and end - offset >= n0 * n1:
            # whole 2-D blocks for a run of outer indices: one batch
            count = (end - offset) // (n0 * n1)
            lin = offset // (n0 * n1)
            outer_shape = shape[2:]
            idx = np.unravel_index(np.arange(lin, lin + count), outer_shape, order="F")
            base = sum(i * s for i, s in zip(idx, strides[2:], strict=True))
            grid = (
                base[None, None, :]
                + (np.arange(n0) * s0)[:, None, None]
                + (np.arange(n1) * s1)[None, :, None]
            )
            r = _rows(flat[grid], s0, s1, acc_dtype)  # (n1, count)
            out.append(r.T.reshape(-1))
            step = count * n0 * n1
            offset += step
            carry = count
            for i in range(2, len(shape)):
                v = values[i] + carry
                values[i], carry = v % shape[i], v // shape[i]
            continue
        step0 = min(n0 - values[0], end - offset)
        step1 = min(n1 - values[1], (end - offset) // n0) if step0 == n0 else 1
        off = sum(v * s for v, s in zip(values, strides, strict=True))
        x = _view(flat, off, (step0, step1, 1), (s0, s1, 0))
        out.append(_rows(x, s0, s1, acc_dtype)[:, 0])
        offset += step0 * step1
        if step1 != 1:
            i, carry = 1, step1
        else:
            i, carry = 0, step0
        while i < len(shape) and carry:
            v = values[i] + carry
            values[i], carry = v % shape[i], (1 if v >= shape[i] else 0)
            i += 1
    return xp.concatenate(out) if out else xp.zeros(0, acc_dtype)


def _reduce(a, dims: tuple, keepdim: bool, source=None):
    """cascade_sum of `a` (a float NumPy array in the output dtype) over `dims`, as
    TensorIterator runs it with get_num_threads() threads. `source` is the array `a` was
    cast from, if it was."""
    acc_dtype = _ACC.get(a.dtype, a.dtype)
    shape = a.shape
    out_shape = tuple(
        1 if d in dims else n for d, n in enumerate(shape) if keepdim or d not in dims
    )
    out = np.zeros(math.prod(out_shape), a.dtype)
    numel = a.size
    if numel == 0:
        return out.reshape(out_shape)
    it = _iterator(shape, _torch_strides(a), dims, keepdim)
    if acc_dtype != a.dtype and len(it) >= 2 and it[0][2] == 0 and it[1][2] == 0:
        # ATen sums float16 over two or more merged reduced dims in float32 (cast from the
        # tensor it was given), then rounds
        src = a if source is None else source
        return _reduce(_to(src, acc_dtype), dims, keepdim).astype(a.dtype)
    flat = _flat(a)
    threads = get_num_threads()
    if numel < GRAIN_SIZE or threads == 1:
        _run(flat, 0, out, 0, it, acc_dtype)
    elif out.size == 1:
        _two_pass(flat, out, it, threads, acc_dtype)
    else:
        _dim_split(flat, out, it, threads, acc_dtype)
    return out.reshape(out_shape)


def _two_pass(flat, out, it, threads: int, acc_dtype) -> None:
    """One output: each thread sums its share of the range into its own slot, then the
    slots are summed as a reduction of their own."""
    numel = math.prod(d[0] for d in it)
    buffer = np.zeros(threads, out.dtype)
    for t, (b, e) in enumerate(_chunks(numel, GRAIN_SIZE, threads)):
        buffer[t] = _store(_range_contribs(flat, it, b, e, acc_dtype)[:, None], out.dtype)[0]
    _run(buffer, 0, out, 0, [[threads, 1, 0]], acc_dtype)


def _dim_split(flat, out, it, threads: int, acc_dtype) -> None:
    """Several outputs: the threads take slices of one kept dim (parallel_dim_reduction)."""
    nd = len(it)
    split = nd - 1
    for d in range(nd - 1, -1, -1):  # the outermost kept dim with at least one slice each
        if it[d][2] == 0:
            break
        if it[d][0] >= threads:
            split = d
            break
        if it[d][0] > it[split][0]:
            split = d
    cols, stride, ostride = it[split]
    multiple = 128 // flat.itemsize if stride == 1 else 1
    for b, e in _chunks(cols, 1, threads):
        b -= b % multiple  # slices of contiguous columns start at a 128-byte boundary
        if e != cols:
            e -= e % multiple
        if b == e:
            continue
        sub = [list(d) for d in it]
        sub[split][0] = e - b
        _run(flat, b * stride, out, b * ostride, sub, acc_dtype)


# -- dtype casts as PyTorch lays them out ---------------------------------------------------
def _dense_strides(shape, strides) -> list[int]:
    """infer_dense_strides: dense strides that keep the input's order of dims (dims with
    stride 0 stay where they are)."""
    nd = len(shape)
    if nd == 0:
        return []
    if nd == 1:
        return [1]
    perm = list(range(nd - 1, -1, -1))

    def should_swap(d0: int, d1: int) -> int:
        a, b = strides[d0], strides[d1]
        if a == 0 or b == 0:
            return 0
        if a != b:
            return -1 if a < b else 1
        return 1 if shape[d0] > shape[d1] else 0

    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    out = [0] * nd
    step = 1
    for p in perm:
        out[p] = step
        if shape[p] > 1:
            step *= shape[p]
    return out


def _is_dense(shape, strides) -> bool:
    dims = sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: strides[d])
    need = 1
    for d in dims:
        if strides[d] != need:
            return False
        need *= shape[d]
    return True


def _to(a, dtype):
    """`tensor.to(dtype)` with PyTorch's preserve_format layout: dense tensors keep their
    strides, others get dense strides in the same order."""
    dtype = np.dtype(dtype)
    if a.dtype == dtype:
        return a
    strides = [s // a.itemsize for s in a.strides]
    if not _is_dense(a.shape, strides):
        strides = _dense_strides(a.shape, strides)
    buf = np.empty(max(a.size, 1), dtype)
    out = np.lib.stride_tricks.as_strided(buf, a.shape, tuple(s * dtype.itemsize for s in strides))
    out[...] = a
    return out


def _normal_layout(a):
    """`a` with non-negative strides in whole items (what the emulation walks); a copy in
    PyTorch's layout otherwise (NumPy views can run backwards, PyTorch's cannot)."""
    if all(s >= 0 and s % a.itemsize == 0 for s in a.strides):
        return a
    return np.ascontiguousarray(a)


# -- small 1-D sums --------------------------------------------------------------------------
def _stream(items, zero):
    """row_sum of fewer than 64 items (no cascade block completes): four running sums over
    items 0, 4, 8, ...; 1, 5, 9, ...; ..., the tail added to the first, then added up."""
    q = len(items) // 4
    if q == 0:
        acc = zero
        for v in items:
            acc = acc + v
        return acc
    p0 = p1 = p2 = p3 = zero
    for i in range(0, 4 * q, 4):
        p0 = p0 + items[i]
        p1 = p1 + items[i + 1]
        p2 = p2 + items[i + 2]
        p3 = p3 + items[i + 3]
    for v in items[4 * q :]:
        p0 = p0 + v
    return ((p0 + p1) + p2) + p3


def _sum_contiguous_small(x):
    """The full sum of a short contiguous 1-D float32/float64 array, with scalars (float64
    as Python floats, which are IEEE doubles; float32 as NumPy float32 scalars)."""
    if x.dtype.itemsize == 8:
        vals, zero = x.tolist(), 0.0
    else:
        vals, zero = list(x), np.float32(0)
    n = len(vals)
    width = _VEC_BYTES // x.dtype.itemsize
    if n < width:  # the strided path: one row_sum; the output then adds it to 0
        return _stream(vals, zero) + zero
    nv = n // width
    final = zero
    for v in vals[nv * width :]:
        final = final + v
    for lane in range(width):
        final = final + _stream(vals[lane : nv * width : width], zero)
    return final + zero


# Short contiguous sums go through scalars (cheaper than the array machinery); they must stay
# below 16 vectors per interleaved stream, where the cascades would start a block
_SMALL = {4: 128, 8: 64}


# -- public entry points -------------------------------------------------------------------
def _dims(ndim: int, dims) -> tuple:
    if dims is None:
        return tuple(range(ndim))
    return tuple(sorted(set(dims))) if len(dims) > 1 else tuple(dims)


def _small_total(a, dims: tuple, out_dtype):
    """The full sum as a scalar when `a` is short, contiguous and needs no cast (the common
    case in lessons), else None."""
    if (
        a.dtype is out_dtype
        and len(dims) == a.ndim
        and out_dtype.itemsize in _SMALL
        and a.size < _SMALL[out_dtype.itemsize]
        and (a.flags.c_contiguous or a.flags.f_contiguous)
    ):
        return _sum_contiguous_small(a.ravel(order="A"))
    return None


def _exact_sum(a, dims: tuple, keepdim: bool, out_dtype):
    """torch_sum for a NumPy array, `dims` normalised, `out_dtype` a float np.dtype."""
    total = _small_total(a, dims, out_dtype)
    if total is not None:
        r = np.asarray(total, out_dtype)
        return r.reshape((1,) * a.ndim) if keepdim else r
    source = None
    if a.dtype != out_dtype:
        source = _normal_layout(a)
        a = _to(source, out_dtype)
    if (
        len(dims) == a.ndim
        and (a.flags.c_contiguous or a.flags.f_contiguous)
        and (a.size < GRAIN_SIZE or get_num_threads() == 1)
        and a.size
    ):
        # a dense full reduction is one contiguous row, summed by one loop call
        x = a.ravel(order="A")[:, None]
        acc_dtype = _ACC.get(out_dtype, out_dtype)
        width = _VEC_BYTES // out_dtype.itemsize
        r = _vec_inner(x, acc_dtype) if len(x) >= width else _cascade_ilp(x.astype(acc_dtype))
        r = _store(r, out_dtype).reshape(())
        return r.reshape((1,) * a.ndim) if keepdim else r
    return _reduce(_normal_layout(a), dims, keepdim, source)


def torch_sum(a, dims=None, keepdim: bool = False, dtype=None):
    """torch.sum(a, dims, keepdim, dtype=dtype) of a float array, rounded as PyTorch's CPU
    kernels round it. `dims` is a tuple of non-negative dims, or None for all of them."""
    xp = array_module(a)
    out_dtype = a.dtype if dtype is None else np.dtype(dtype)
    dims = _dims(a.ndim, dims)
    if xp is not np:
        return xp.sum(a, axis=dims, keepdims=keepdim, dtype=out_dtype)
    return _exact_sum(a, dims, keepdim, out_dtype)


def torch_mean(a, dims=None, keepdim: bool = False, dtype=None):
    """torch.mean: the PyTorch-rounded sum (float16 summed in float32) divided by the count."""
    xp = array_module(a)
    out_dtype = a.dtype if dtype is None else np.dtype(dtype)
    dims = _dims(a.ndim, dims)
    if xp is not np:
        return xp.mean(a, axis=dims, keepdims=keepdim, dtype=out_dtype)
    sum_dtype = _ACC.get(out_dtype, out_dtype)
    count = a.size if len(dims) == a.ndim else math.prod([a.shape[d] for d in dims])
    total = _small_total(a, dims, sum_dtype)
    if total is not None and count:
        r = np.asarray(total / sum_dtype.type(count), out_dtype)
        return r.reshape((1,) * a.ndim) if keepdim else r
    s = _exact_sum(a, dims, keepdim, sum_dtype)
    if count:
        r = s / sum_dtype.type(count)
    else:
        with np.errstate(invalid="ignore"):  # 0 / 0: the mean of nothing is nan
            r = s / sum_dtype.type(count)
    return r.astype(out_dtype, copy=False)


# -- other reductions in PyTorch's order ------------------------------------------------------
def _reduced_layout(a, dims: tuple, keepdim: bool):
    """(view, out, out strides): `a` as (L, *kept) with axis 0 running over the reduced
    elements in the order TensorIterator visits them (its innermost dim fastest), and the
    flat output with the strides (in items) of the kept axes."""
    shape = a.shape
    it = _iterator(shape, _torch_strides(a), dims, keepdim)
    red = [d for d in it if d[2] == 0][::-1]
    keep = [d for d in it if d[2] != 0]
    count = math.prod(d[0] for d in red)
    view = _view(_flat(a), 0, [d[0] for d in red + keep], [d[1] for d in red + keep])
    view = view.reshape((count,) + tuple(d[0] for d in keep))
    out_shape = tuple(
        1 if d in dims else n for d, n in enumerate(shape) if keepdim or d not in dims
    )
    return view, out_shape, [d[2] for d in keep], it


def _fold(terms, acc_dtype, single_output: bool):
    """binary_kernel_reduce's running sum of `terms` (axis 0) from 0; one output over more
    than GRAIN_SIZE items is cut into per-thread pieces whose sums are then added to 0."""
    n = terms.shape[0]
    threads = get_num_threads()
    if not single_output or n < GRAIN_SIZE or threads == 1:
        return _seq(terms)
    parts = [_seq(terms[b:e]) for b, e in _chunks(n, GRAIN_SIZE, threads)]
    zero = np.zeros_like(parts[0])
    return _seq(np.stack(parts + [zero] * (threads - len(parts))))


def _fma(a, b, c):
    """a*b + c rounded once (x86's FMA), element-wise."""
    from gradshell.core.fma import fma32, fma64

    fn = fma32 if a.dtype == np.float32 else fma64
    return np.asarray(fn(a, b, c)).reshape(np.broadcast_shapes(a.shape, c.shape))


def _norm2_lastdim(rows):
    """The vectorised 2-norm over a contiguous last dim (rows is (L, ...)): squares summed
    lane by lane over 32-byte vectors, lanes added in order, then the leftover items —
    the compiler squares them four at a time without FMA, then FMAs the rest."""
    n = rows.shape[0]
    width = _VEC_BYTES // rows.itemsize
    nv = n // width
    vecs = rows[: nv * width].reshape((nv, width) + rows.shape[1:])
    total = _seq(_seq(vecs * vecs))
    tail = rows[nv * width :]
    plain = len(tail) // 4 * 4 if rows.dtype == np.float32 else 0
    for i in range(len(tail)):
        if i < plain:
            total = total + tail[i] * tail[i]
        else:
            total = _fma(tail[i], tail[i], total)
    return np.sqrt(total)


_LIBM_POW_MAX = 1 << 16  # beyond this many items, NumPy's own (faster, inexact) power


@functools.cache
def _libm_pow():
    """glibc's (powf, pow) through ctypes, or None where there is no such libm."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("m")
    try:
        libm = ctypes.CDLL(name) if name else None
    except OSError:
        libm = None
    if libm is None or not hasattr(libm, "powf"):
        return None
    libm.powf.restype = ctypes.c_float
    libm.powf.argtypes = [ctypes.c_float, ctypes.c_float]
    return np.frompyfunc(libm.powf, 2, 1), np.frompyfunc(math.pow, 2, 1)


def _pow(x, y):
    """x ** y element-wise as the C library computes it: PyTorch's scalar reduction kernels
    call pow/powf, whose last bit NumPy's vectorised power does not always reproduce."""
    fns = _libm_pow()
    if fns is None or x.size > _LIBM_POW_MAX:
        return np.power(x, y)
    fn = fns[0] if x.dtype == np.float32 else fns[1]
    return np.asarray(fn(x, y), dtype=x.dtype).reshape(np.broadcast_shapes(x.shape, np.shape(y)))


def torch_vector_norm(a, p: float = 2.0, dims=None, keepdim: bool = False, dtype=None):
    """torch.linalg.vector_norm(a, p, dims, keepdim, dtype=dtype) of a float array, summed
    in PyTorch's CPU order (dims: non-negative ints, or None for all)."""
    xp = array_module(a)
    out_dtype = a.dtype if dtype is None else np.dtype(dtype)
    dims = _dims(a.ndim, dims)
    if a.dtype != out_dtype:
        a = _to(_normal_layout(a), out_dtype) if xp is np else a.astype(out_dtype)
    p = float(p)
    if all(a.shape[d] == 1 for d in dims):
        # nothing to reduce: |x| (ATen skips the kernel), or x != 0 for p = 0
        r = (a != 0).astype(out_dtype) if p == 0 else xp.abs(a)
        return r if keepdim else r.reshape([n for d, n in enumerate(a.shape) if d not in dims])
    if xp is not np or math.isinf(p) or p == 0:
        # max/min/count are exact in any order; other array modules need not match the bits
        m = xp.abs(a)
        kd = {"axis": dims, "keepdims": keepdim}
        if m.size == 0:
            shape = [1 if d in dims else n for d, n in enumerate(a.shape)]
            if not keepdim:
                shape = [n for d, n in enumerate(a.shape) if d not in dims]
            return xp.full(shape, math.inf if p < 0 else 0.0, out_dtype)
        if p == math.inf:
            return xp.max(m, **kd).astype(out_dtype)
        if p == -math.inf:
            return xp.min(m, **kd).astype(out_dtype)
        if p == 0:
            return xp.sum(m != 0, **kd).astype(out_dtype)
        acc = xp.sum(m**p, dtype=_ACC.get(out_dtype, out_dtype), **kd)
        return (acc ** (1.0 / p)).astype(out_dtype)
    a = _normal_layout(a)
    acc_dtype = _ACC.get(out_dtype, out_dtype)
    if a.size == 0:
        shape = [1 if d in dims else n for d, n in enumerate(a.shape) if keepdim or d not in dims]
        return np.full(shape, math.inf if p < 0 else 0.0, out_dtype)
    view, out_shape, out_strides, it = _reduced_layout(a, dims, keepdim)
    out = np.zeros(math.prod(out_shape), out_dtype)
    lastdim = (
        p == 2
        and out_dtype in (np.float32, np.float64)
        and sum(d[2] == 0 for d in it) == 1
        and it[0][2] == 0
        and it[0][1] == 1
    )
    x = view.astype(acc_dtype, copy=False)
    if lastdim:
        r = _norm2_lastdim(x)
    else:
        m = np.abs(x)
        if p == 2:
            terms = m * m
        elif p == 1:
            terms = m
        else:
            terms = _pow(m, acc_dtype.type(p))
        r = _fold(terms, acc_dtype, out.size == 1)
        if p == 2:
            r = np.sqrt(r)
        elif p != 1:
            r = _pow(r, acc_dtype.type(1) / acc_dtype.type(p))
    dst = _view(out, 0, r.shape, out_strides)
    dst[...] = r
    return out.reshape(out_shape)


def _call_segments(shape, begin: int, end: int):
    """serial_for_each's 2-D loop calls over the linear range [begin, end) of an iteration
    space (dims innermost first): (start, count, length) runs of `count` consecutive calls
    of `length` items each."""
    if len(shape) <= 1:
        return [(begin, 1, end - begin)]
    n0, n1 = shape[0], shape[1]
    block = n0 * n1
    out = []
    offset = begin
    while offset < end:
        v0 = offset % n0
        v1 = (offset // n0) % n1
        if v0 == 0 and v1 == 0 and end - offset >= block:
            count = (end - offset) // block
            out.append((offset, count, block))
            offset += count * block
            continue
        step0 = min(n0 - v0, end - offset)
        step1 = min(n1 - v1, (end - offset) // n0) if step0 == n0 else 1
        out.append((offset, 1, step0 * step1))
        offset += step0 * step1
    return out


def _var_all(a, correction: float, take_sqrt: bool, out_dtype):
    """std_var_all_cpu: PyTorch's float mean (as a double), then the squared deviations
    summed in double, one running sum per loop call, added into one per thread."""
    dims = tuple(range(a.ndim))
    mean = float(torch_mean(a))
    view, _, _, it = _reduced_layout(a, dims, False)
    dx = view.reshape(-1).astype(np.float64) - mean
    terms = dx * dx
    shape = [d[0] for d in it]
    total = 0.0
    partials = []
    for b, e in _chunks(terms.size, GRAIN_SIZE, get_num_threads()):
        thread_sum = []
        for start, count, length in _call_segments(shape, b, e):
            block = terms[start : start + count * length].reshape(count, length)
            thread_sum.append(_seq(block.T))
        partials.append(float(_seq(np.concatenate(thread_sum))))
    for part in partials + [0.0] * (get_num_threads() - len(partials)):
        total = total + part
    var = total / max(0.0, a.size - correction) if a.size > correction else _div0(total)
    return np.asarray(math.sqrt(var) if take_sqrt and var >= 0 else var).astype(out_dtype)


def _div0(x: float) -> float:
    """x / 0.0 as IEEE (and C++) have it."""
    return math.nan if x == 0 or math.isnan(x) else math.copysign(math.inf, x)


_WELFORD_MAX = 1 << 14  # longer reductions (over several outputs) use NumPy's two passes


def _welford(view, single_output: bool):
    """WelfordOps over axis 0, in double: returns (m2, count) per column, combining the
    per-thread pieces of a single output as ATen does."""
    n = view.shape[0]
    x = view.astype(np.float64)
    if single_output and n >= GRAIN_SIZE and get_num_threads() > 1:
        pieces = [_welford_run(x[b:e]) for b, e in _chunks(n, GRAIN_SIZE, get_num_threads())]
        mean, m2, nf = pieces[0]
        for pmean, pm2, pnf in pieces[1:]:
            delta = pmean - mean
            new_n = nf + pnf
            ratio = pnf / new_n
            mean, m2, nf = mean + delta * ratio, m2 + pm2 + delta * delta * nf * ratio, new_n
        return m2, nf
    _, m2, nf = _welford_run(x)
    return m2, nf


def _welford_run(x):
    mean = np.zeros(x.shape[1:])
    m2 = np.zeros(x.shape[1:])
    for k in range(x.shape[0]):
        delta = x[k] - mean
        mean = mean + delta / float(k + 1)
        m2 = m2 + delta * (x[k] - mean)
    return mean, m2, float(x.shape[0])


def torch_var(a, dims=None, correction: float = 1.0, keepdim: bool = False, take_sqrt=False):
    """torch.var / torch.std (take_sqrt) of a float array, as PyTorch's CPU kernels compute
    them: one output (float32/float64) by two passes in double, else Welford's updates in
    double in TensorIterator's order."""
    xp = array_module(a)
    dims = _dims(a.ndim, dims)
    out_shape = tuple(
        1 if d in dims else n for d, n in enumerate(a.shape) if keepdim or d not in dims
    )
    count = math.prod([a.shape[d] for d in dims])
    if xp is not np:
        m = xp.mean(a, axis=dims, keepdims=True)
        dev = a - m
        ss = xp.sum(dev * dev, axis=dims, keepdims=keepdim, dtype=np.float64)
        v = ss / max(0.0, count - correction)
        return (xp.sqrt(v) if take_sqrt else v).astype(a.dtype)
    a = _normal_layout(a)
    with np.errstate(divide="ignore", invalid="ignore"):
        if a.size == 0:
            return np.full(out_shape, math.nan, a.dtype)
        if math.prod(out_shape) == 1 and a.dtype != np.float16:
            return _var_all(a, correction, take_sqrt, a.dtype).reshape(out_shape)
        view, out_shape, out_strides, _ = _reduced_layout(a, dims, keepdim)
        if view.shape[0] > _WELFORD_MAX and view[0].size > 1:
            x = view.astype(np.float64)
            dev = x - x.mean(axis=0)
            m2, nf = np.sum(dev * dev, axis=0), float(view.shape[0])
        else:
            m2, nf = _welford(view, math.prod(out_shape) == 1)
        divisor = nf - correction if nf > correction else 0.0
        var = m2 / divisor
        r = (np.sqrt(var) if take_sqrt else var).astype(a.dtype)
    out = np.zeros(math.prod(out_shape), a.dtype)
    _view(out, 0, r.shape, out_strides)[...] = r
    return out.reshape(out_shape)


def torch_cumulative(fn, a, dim: int, dtype):
    """cumsum/cumprod (`fn`, from a's array module) along `dim`, run as PyTorch's CPU kernel
    runs it: strictly in order in the accumulate type — double for float32, float for
    float16 — each output rounded from the running value."""
    dtype = np.dtype(dtype)
    acc = {np.dtype(np.float32): np.float64, np.dtype(np.float16): np.float32}.get(dtype, dtype)
    r = fn(a, axis=dim, dtype=acc)
    return r if r.dtype == dtype else r.astype(dtype)


def _nll_cascade(values, positions, count: int):
    """nll_loss's own cascade: running sums on eight levels; an item at index b (counted
    over all `count` targets, ignored ones included) sends level j up to level j+1 when b is
    a multiple of 16**(j+1) — so index 0 goes straight to the top — and the levels are
    added from 0 at the end."""
    xp = array_module(values)
    step = 1 << max(4, _ceil_log2(count) // 8)
    zero = xp.zeros(0, values.dtype)
    left = []
    for j in range(7):
        if values.shape[0] == 1 and int(positions[0]) == 0:
            break  # only index 0 is left: it rises straight to the top, adding nothing below
        events = positions % (step ** (j + 1)) == 0
        nev = int(events.sum())
        group = xp.cumsum(events) - events  # the transfer that takes each item up
        closed = group < nev
        left.append(_seq(values[~closed]))  # still on this level at the end
        if nev == 0:
            values = zero
            break
        cv, cg = values[closed], group[closed]
        start = xp.searchsorted(cg, xp.arange(nev))
        offset = xp.arange(len(cg)) - start[cg]
        # each group's running sum (zeros padded after an item change nothing: a sum
        # from +0 is never -0)
        grid = xp.zeros((int(offset.max()) + 1, nev), values.dtype)
        grid[offset, cg] = cv
        values = _seq(grid)
        positions = positions[events]
    left += [values.dtype.type(0)] * (7 - len(left))  # levels nothing reached
    left.append(_seq(values))
    return _seq(xp.stack([xp.asarray(v, values.dtype) for v in left]))


def torch_nll_totals(picked, weight, valid, count: int):
    """nll_loss's reduced loss and total weight, added up as PyTorch's CPU kernel does.

    `picked` holds the chosen log-probabilities (one per target, in the kernel's order),
    `weight` the class weight of each target (None: unweighted), `valid` which targets are
    not ignored (None: all); returns (sum of -picked*weight, total weight)."""
    xp = array_module(picked)
    dt = picked.dtype
    if xp is not np:
        w = xp.ones_like(picked) if weight is None else weight
        if valid is not None:
            w = xp.where(valid, w, 0).astype(dt)
        return xp.sum(-w * picked), xp.sum(w)
    positions = np.arange(len(picked))
    if valid is not None:
        positions, picked = positions[valid], picked[valid]
        weight = weight[valid] if weight is not None else None
    if weight is None:
        loss = _nll_cascade(-picked, positions, count)
        return loss, dt.type(len(positions))
    loss = _nll_cascade(-(picked * weight), positions, count)
    return loss, _nll_cascade(weight.astype(dt), positions, count)


# -- prod ---------------------------------------------------------------------------------------
def _seqprod(a):
    """((1 * a[0]) * a[1]) * ... along axis 0 (1 * x is x, so start from a[0])."""
    xp = array_module(a)
    if a.shape[0] == 0:
        return xp.ones(a.shape[1:], a.dtype)
    if a.shape[0] > 2 and (a.size // a.shape[0] <= _ACCUMULATE_COLS or a.shape[0] > _SEQ_LOOP_MAX):
        return xp.multiply.accumulate(a, axis=0)[-1]
    acc = xp.array(a[0], copy=True)
    for t in range(1, a.shape[0]):
        acc = acc * a[t]
    return acc


def _prod_factors(x, s0: int, o0: int):
    """What one call of binary_kernel_reduce_vec's loop multiplies into each row's output,
    in order: for a contiguous row, the product of its whole 4-vector blocks (four vector
    accumulators, combined (a0*a1)*(a2*a3), lanes multiplied in order) and then each
    leftover item; otherwise every item. Shaped (factors, rows, ...)."""
    width = _VEC_BYTES // x.itemsize
    if o0 != 0 or s0 != 1 or x.shape[0] < 4 * width:
        return x
    xp = array_module(x)
    count = x.shape[0] // (4 * width)
    blocks = x[: count * 4 * width].reshape((count, 4, width) + x.shape[1:])
    acc = _seqprod(blocks)
    lanes = (acc[0] * acc[1]) * (acc[2] * acc[3])
    return xp.concatenate([_seqprod(lanes)[None], x[count * 4 * width :]])


def torch_prod(a, dims=None, keepdim: bool = False, dtype=None):
    """torch.prod of a float array, multiplied in the order of PyTorch's CPU kernel."""
    xp = array_module(a)
    out_dtype = a.dtype if dtype is None else np.dtype(dtype)
    dims = _dims(a.ndim, dims)
    if xp is not np:
        return xp.prod(a, axis=dims, keepdims=keepdim, dtype=out_dtype)
    if a.dtype != out_dtype:
        a = _to(_normal_layout(a), out_dtype)
    a = _normal_layout(a)
    out_shape = tuple(
        1 if d in dims else n for d, n in enumerate(a.shape) if keepdim or d not in dims
    )
    out = np.ones(math.prod(out_shape), out_dtype)
    if a.size == 0:
        return out.reshape(out_shape)
    it = _loop_dims(_iterator(a.shape, _torch_strides(a), dims, keepdim))
    flat = _flat(a)
    threads = get_num_threads()
    if a.size < GRAIN_SIZE or threads == 1 or out.size > 1:
        # several outputs: the threads split kept dims, which changes no product
        _prod_run(flat, 0, out, 0, it)
    else:
        buffer = np.ones(threads, out_dtype)
        for t, (b, e) in enumerate(_chunks(a.size, GRAIN_SIZE, threads)):
            parts = []
            for start, count, length in _call_segments([d[0] for d in it], b, e):
                for k in range(count):
                    parts.append(_prod_call(flat, it, start + k * length, length))
            buffer[t] = _seqprod(np.concatenate(parts))
        _prod_run(buffer, 0, out, 0, [[threads, 1, 0], [1, 0, 0]])
    return out.reshape(out_shape)


def _prod_call(flat, it, start: int, length: int):
    """The factors of one loop call covering items [start, start + length) of an iterator
    whose every dim is reduced (one output)."""
    (n0, s0, _), (_, s1, _) = it[0], it[1]
    shape = [d[0] for d in it]
    strides = [d[1] for d in it]
    values, rem = [], start
    for n in shape:
        values.append(rem % n)
        rem //= n
    off = sum(v * s for v, s in zip(values, strides, strict=True))
    step0 = min(n0, length)
    step1 = length // step0
    x = _view(flat, off, (step0, step1), (s0, s1))
    f = _prod_factors(x, s0, 0)
    return f.transpose(1, 0).reshape(-1)


def _prod_run(flat, in_off: int, out, out_off: int, it) -> None:
    """serial_for_each of binary_kernel_reduce_vec's loop over the whole of `it`."""
    (n0, s0, o0), (n1, s1, o1) = it[0], it[1]
    outer = it[2:]
    shape = [n0, n1] + [d[0] for d in outer]
    x = _view(flat, in_off, shape, [s0, s1] + [d[1] for d in outer])
    if o0 != 0:  # nothing reduced: each output is 1 * its input
        f = x[None]
        ostr = [0, o0, o1] + [d[2] for d in outer]
    else:
        f = _prod_factors(x, s0, o0)
        ostr = [0, o1] + [d[2] for d in outer]
    # factors of one output come in the loop's order: row items first, then rows, then
    # outer dims (innermost fastest)
    axes = list(range(f.ndim))
    red = [a for a in axes if ostr[a] == 0]
    keep = [a for a in axes if ostr[a] != 0]
    keep_shape = [f.shape[a] for a in keep]
    f = f.transpose(red[::-1] + keep).reshape([-1] + keep_shape)
    _view(out, out_off, keep_shape, [ostr[a] for a in keep])[...] = _seqprod(f)
