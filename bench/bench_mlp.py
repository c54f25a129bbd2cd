"""Benchmark (issue 6): one training step of a 784-256-10 ReLU MLP (batch 128,
cross-entropy, SGD) with gradshell's torch.nn/torch.optim, against a hand-written NumPy
floor (the same arithmetic with no autograd) and against PyTorch, in the same run.

    uv run python bench/bench_mlp.py [--repeat N] [--threads N]

Every contender runs its BLAS with the same number of threads (1 by default, so the
figures compare the libraries rather than the machine's idle cores). Targets: within
1.2x of the NumPy floor and at most 1.5x PyTorch.
"""

from __future__ import annotations

import argparse
import os
import sys


def _threads_from_argv() -> int:
    for i, a in enumerate(sys.argv):
        if a == "--threads" and i + 1 < len(sys.argv):
            return int(sys.argv[i + 1])
        if a.startswith("--threads="):
            return int(a.split("=", 1)[1])
    return 1


# BLAS reads its thread count when it loads: set it before NumPy is imported.
_THREADS = _threads_from_argv()
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = str(_THREADS)

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from common import fmt_time, table  # noqa: E402

from gradshell import torch as gtorch  # noqa: E402

try:
    import torch as real_torch

    real_torch.set_num_threads(_THREADS)
except ImportError:  # the benchmark still runs, without the PyTorch column
    real_torch = None

BATCH, IN, HIDDEN, OUT = 128, 784, 256, 10
LR = 0.01


def make_data(seed: int = 0):
    """Inputs, labels and initial weights shared by every contender."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, IN)).astype(np.float32)
    y = rng.integers(0, OUT, BATCH).astype(np.int64)
    b1 = 1 / np.sqrt(IN)
    b2 = 1 / np.sqrt(HIDDEN)
    weights = {
        "0.weight": rng.uniform(-b1, b1, (HIDDEN, IN)).astype(np.float32),
        "0.bias": rng.uniform(-b1, b1, HIDDEN).astype(np.float32),
        "2.weight": rng.uniform(-b2, b2, (OUT, HIDDEN)).astype(np.float32),
        "2.bias": rng.uniform(-b2, b2, OUT).astype(np.float32),
    }
    return x, y, weights


def torch_like_step(torch, x_np, y_np, weights):
    """A training step written once, run with gradshell's torch or with PyTorch."""
    nn = torch.nn
    model = nn.Sequential(nn.Linear(IN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, OUT))
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(torch.tensor(weights[name]))
    loss_fn = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    x, y = torch.tensor(x_np), torch.tensor(y_np)

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def numpy_step(x, y, weights):
    """The NumPy floor: the same forward, hand-derived backward and SGD update."""
    w1, b1 = weights["0.weight"].copy(), weights["0.bias"].copy()
    w2, b2 = weights["2.weight"].copy(), weights["2.bias"].copy()
    rows = np.arange(BATCH)
    lr = np.float32(LR)

    def step():
        nonlocal w1, b1, w2, b2  # updated in place below
        h = x @ w1.T
        h += b1
        a = np.maximum(h, 0)
        z = a @ w2.T
        z += b2
        shifted = z - z.max(1, keepdims=True)
        e = np.exp(shifted)
        s = e.sum(1, keepdims=True)
        logp = shifted - np.log(s)
        loss = -logp[rows, y].mean()
        dz = e / s
        dz[rows, y] -= 1
        dz /= BATCH
        dw2 = dz.T @ a
        db2 = dz.sum(0)
        da = dz @ w2
        dh = da * (h > 0)
        dw1 = dh.T @ x
        db1 = dh.sum(0)
        w1 -= lr * dw1
        b1 -= lr * db1
        w2 -= lr * dw2
        b2 -= lr * db2
        return loss

    return step


def check_same_losses(x, y, weights, steps: int = 5) -> None:
    """The three contenders compute the same losses (so the timings compare like with like)."""
    ours = torch_like_step(gtorch, x, y, weights)
    floor = numpy_step(x, y, weights)
    a = [ours().item() for _ in range(steps)]
    b = [float(floor()) for _ in range(steps)]
    np.testing.assert_allclose(a, b, rtol=1e-4)
    if real_torch is not None:
        theirs = torch_like_step(real_torch, x, y, weights)
        c = [theirs().item() for _ in range(steps)]
        np.testing.assert_allclose(a, c, rtol=1e-4)


def interleaved(fns: dict, repeat: int, min_time: float = 0.1) -> dict:
    """Best per-call time of each function, timing them in turns (round robin) so that a
    change in the machine's load hits every contender alike."""
    import time

    counts = {}
    for name, fn in fns.items():
        fn()
        n = 1
        while True:
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            took = time.perf_counter() - t0
            if took >= min_time / 4:
                break
            n *= 2
        counts[name] = max(1, int(n * min_time / max(took, 1e-9)))
    best = {name: float("inf") for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            n = counts[name]
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            best[name] = min(best[name], (time.perf_counter() - t0) / n)
    return best


def main() -> None:
    """Time one training step for each contender and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="best of N timing rounds")
    parser.add_argument("--threads", type=int, default=1, help="BLAS/intra-op threads")
    args = parser.parse_args()
    x, y, weights = make_data()
    check_same_losses(x, y, weights)
    fns = {
        "gradshell": torch_like_step(gtorch, x, y, weights),
        "numpy": numpy_step(x, y, weights),
    }
    if real_torch is not None:
        fns["pytorch"] = torch_like_step(real_torch, x, y, weights)
    times = interleaved(fns, args.repeat)
    ours, floor, theirs = times["gradshell"], times["numpy"], times.get("pytorch")
    row = (
        "MLP 784-256-10, batch 128, CE + SGD step",
        fmt_time(ours),
        fmt_time(theirs) if theirs else "-",
        fmt_time(floor),
        f"{ours / theirs:.2f}x" if theirs else "-",
        f"{ours / floor:.2f}x",
    )
    headers = ("benchmark", "gradshell", "PyTorch", "NumPy floor", "vs PyTorch", "vs NumPy")
    print(f"threads: {args.threads}")
    print(table([row], headers))
    print("targets: vs NumPy <= 1.20x, vs PyTorch <= 1.50x")


if __name__ == "__main__":
    main()
