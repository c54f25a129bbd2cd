"""Which elements PyTorch's CPU loops send down the vector path and which down the scalar one.

``cpu_kernel_vec`` (ATen's ``native/cpu/Loops.h``) splits a contiguous range among OpenMP
threads (``at::parallel_for`` with a grain of 32768 elements), and each thread's share
runs in blocks of two vectors (2 x 16 float32 or 2 x 8 float64 on an AVX-512 build);
the elements after the last full block go through the scalar C++ lambda.  The two paths
round differently (Sleef against the C library), so the position of each element
decides its last bit.  Measured on PyTorch 2.13's AVX-512 build: a float32 sigmoid of 33
elements takes the vector path for the first 32 and the scalar one for the 33rd.

``vec::map`` (the ``vml`` functions such as ``log1p``) has no scalar tail: its last
partial vector is loaded and computed as a vector.
"""

from __future__ import annotations

import numpy as np

from gradshell.core.threads import GRAIN_SIZE, _chunks, get_num_threads

VECTOR_BYTES = 64  # one AVX-512 register; PyTorch's CPU capability on this kind of machine


def block_size(dtype: np.dtype) -> int:
    """Elements per vectorised step of ``cpu_kernel_vec`` (two vectors) for `dtype`."""
    return 2 * (VECTOR_BYTES // np.dtype(dtype).itemsize)


def scalar_mask(n: int, dtype: np.dtype, threads: int | None = None) -> np.ndarray:
    """Boolean mask over ``range(n)``: True where ``cpu_kernel_vec`` runs the scalar lambda."""
    threads = get_num_threads() if threads is None else threads
    block = block_size(dtype)
    mask = np.zeros(n, dtype=bool)
    for b, e in _chunks(n, GRAIN_SIZE, threads):
        body = (e - b) // block * block
        mask[b + body : e] = True
    return mask


def scalar_indices(n: int, dtype: np.dtype, threads: int | None = None) -> np.ndarray:
    """The positions in ``range(n)`` where ``cpu_kernel_vec`` runs the scalar lambda: a
    short tail (under one block) at the end of each thread's share."""
    threads = get_num_threads() if threads is None else threads
    block = block_size(dtype)
    tails = [np.arange(b + (e - b) // block * block, e) for b, e in _chunks(n, GRAIN_SIZE, threads)]
    return np.concatenate(tails) if tails else np.zeros(0, np.intp)


def vec_and_scalar(x: np.ndarray, vec_fn, scalar_fn) -> np.ndarray:
    """Apply ``vec_fn`` to the elements on the vector path and ``scalar_fn`` to the tails.

    `x` is read in memory order (C order for a C-contiguous array, the layout of a dense
    permuted array otherwise), as TensorIterator coalesces a dense tensor into one range.
    The vector function runs over the whole range (the few tail elements it also computes
    are overwritten), so no boolean selection of the body is needed.
    """
    order = "F" if (x.flags.f_contiguous and not x.flags.c_contiguous) else "C"
    flat = x.ravel(order=order)
    tail = scalar_indices(flat.size, flat.dtype)
    if tail.size == flat.size:
        out = np.asarray(scalar_fn(flat), dtype=flat.dtype)
    else:
        out = np.asarray(vec_fn(flat), dtype=flat.dtype)
        if tail.size:
            out[tail] = scalar_fn(flat[tail])
    return out.reshape(x.shape, order=order)


def vec_and_scalar2(a: np.ndarray, b: np.ndarray, vec_fn, scalar_fn) -> np.ndarray:
    """``vec_and_scalar`` for a kernel of two same-shaped C-ordered arrays."""
    fa, fb = a.reshape(-1), b.reshape(-1)
    tail = scalar_indices(fa.size, fa.dtype)
    if tail.size == fa.size:
        out = np.asarray(scalar_fn(fa, fb), dtype=fa.dtype)
    else:
        out = np.asarray(vec_fn(fa, fb), dtype=fa.dtype)
        if tail.size:
            out[tail] = scalar_fn(fa[tail], fb[tail])
    return out.reshape(a.shape)
