"""Exact sums (gradshell.ops.summation, PyTorch's order of additions in NumPy) against real
PyTorch and against plain np.add.reduce (NumPy's own pairwise sum: the floor), at 10, 1000
and 10^6 float32 elements. Run: `uv run python bench/bench_summation.py`."""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import fmt_time, per_call, table  # noqa: E402

from gradshell import torch as gtorch  # noqa: E402
from gradshell.ops import summation  # noqa: E402

try:
    import torch as real_torch
except ImportError:  # the benchmark still runs, without the PyTorch column
    real_torch = None


def cases():
    """(label, array, dims) triples: full sums at three sizes, then sums over one dim."""
    rng = np.random.default_rng(0)
    for n in (10, 1000, 10**6):
        yield f"sum, {n} elements", rng.standard_normal(n).astype(np.float32), None
    a = rng.standard_normal((1000, 1000)).astype(np.float32)
    yield "sum(0), 1000x1000", a, (0,)
    yield "sum(1), 1000x1000", a, (1,)
    yield "sum, 1000x1000[:, ::2]", a[:, ::2], None


def main() -> None:
    threads = summation.get_num_threads()
    if real_torch is not None:
        real_torch.set_num_threads(threads)  # the split the emulation reproduces
    rows = []
    for label, a, dims in cases():
        ours = per_call(lambda a=a, dims=dims: summation.torch_sum(a, dims))
        floor = per_call(lambda a=a, dims=dims: np.add.reduce(a, axis=dims))
        if real_torch is not None:
            t = real_torch.from_numpy(a)
            theirs = per_call(lambda t=t, dims=dims: t.sum() if dims is None else t.sum(dims))
            torch_cell = fmt_time(theirs)
        else:
            torch_cell = "-"
        rows.append((label, fmt_time(ours), torch_cell, fmt_time(floor), f"{ours / floor:.1f}x"))
    # the seed program's mean of four elements, through a gradshell tensor
    x = gtorch.ones(2, 2)
    ours = per_call(lambda: x.mean())
    floor = per_call(lambda: np.add.reduce(x._data, axis=None) / 4)
    theirs = "-"
    if real_torch is not None:
        t = real_torch.ones(2, 2)
        theirs = fmt_time(per_call(lambda: t.mean()))
    rows.append(
        ("Tensor.mean(), 2x2", fmt_time(ours), theirs, fmt_time(floor), f"{ours / floor:.1f}x")
    )
    print(f"float32, {threads} thread(s)")
    print(table(rows, ("case", "gradshell (exact)", "PyTorch", "np.add.reduce", "vs NumPy")))


if __name__ == "__main__":
    main()
