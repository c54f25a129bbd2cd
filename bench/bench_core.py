"""Core benchmarks (issue: the autograd core): gradshell vs real PyTorch vs a hand-written
NumPy floor, side by side in one process. Run: `uv run python bench/bench_core.py`."""

from __future__ import annotations

import os
import subprocess
import sys
import time

# One BLAS thread for every contender (set before NumPy loads its BLAS), so the figures
# compare the libraries, not how many idle cores the machine has.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from common import fmt_time, per_call, seed_program, table  # noqa: E402

from gradshell import torch as gtorch  # noqa: E402

try:
    import torch as real_torch

    real_torch.set_num_threads(1)
except ImportError:  # the benchmark still runs, without the PyTorch column
    real_torch = None


def seed_numpy():
    def run():
        x = np.ones((2, 2), np.float32)
        y = x + 2
        z = y * y * 3
        _ = z.mean()
        gz = np.full((2, 2), 1 / 4, np.float32)
        gy = gz * 3 * y * 2
        grad = gy.copy()
        grad.fill(0)

    return run


def chain(torch, n_ops: int = 2000):
    """2,000 elementwise ops on 100 elements, forward and backward."""

    def run():
        x = torch.ones(100, requires_grad=True)
        y = x
        for i in range(n_ops):
            y = y * 1.0001 if i % 2 else y + 0.001
        y.sum().backward()

    return run


def chain_numpy(n_ops: int = 2000):
    def run():
        x = np.ones(100, np.float32)
        y = x
        for i in range(n_ops):
            y = y * np.float32(1.0001) if i % 2 else y + np.float32(0.001)
        g = np.ones(100, np.float32)
        for i in reversed(range(n_ops)):
            if i % 2:
                g = g * np.float32(1.0001)
        return g

    return run


def matmul(torch, n: int = 1024):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    A = torch.from_numpy(a).requires_grad_()
    B = torch.from_numpy(b).requires_grad_()

    def run():
        A.grad = None
        B.grad = None
        (A @ B).sum().backward()

    return run


def matmul_numpy(n: int = 1024):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)

    def run():
        c = a @ b
        _ = c.sum()
        g = np.ones_like(c)
        _ = g @ b.T
        _ = a.T @ g

    return run


SEED_SRC = (
    "x = torch.ones(2, 2, requires_grad=True); y = x + 2; z = y * y * 3; out = z.mean(); "
    "out.backward(); g = x.grad; x.grad.zero_()"
)


def cold_start(module: str) -> float:
    """Seconds for a fresh process to import `module` as torch and run the seed program."""
    code = (
        f"import {module} as torch; {SEED_SRC}"
        if module == "torch"
        else (f"from gradshell import torch; {SEED_SRC}")
    )
    # Cache compiled bytecode as Python does on a user's machine (pip-installed torch ships
    # its own precompiled; PYTHONDONTWRITEBYTECODE would make every start recompile ours).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)  # writes the caches
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env=env)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    """Print the core benchmark table."""
    rows = []
    cases = [
        ("seed program, per iteration", seed_program, seed_numpy(), 0.5),
        ("2,000-op chain on 100 elements, fwd+bwd", chain, chain_numpy(), 0.5),
        ("(A @ B).sum() backward, 1024² float32", matmul, matmul_numpy(), None),
    ]
    for name, make, floor, target in cases:
        g = per_call(make(gtorch), min_time=0.5)
        f = per_call(floor, min_time=0.5)
        p = per_call(make(real_torch), min_time=0.5) if real_torch else float("nan")
        rows.append(
            (
                name,
                fmt_time(g),
                fmt_time(p),
                fmt_time(f),
                f"{g / p:.2f}×",
                f"{g / f:.2f}×",
                f"≤{target}× PyTorch" if target else "≤1.2× NumPy",
            )
        )
    gs = cold_start("gradshell")
    pt = cold_start("torch") if real_torch else float("nan")
    rows.append(
        (
            "import + seed program, fresh process",
            fmt_time(gs),
            fmt_time(pt),
            "—",
            f"{gs / pt:.2f}×",
            "—",
            "≤0.2× PyTorch",
        )
    )
    print(
        table(
            rows,
            (
                "benchmark",
                "gradshell",
                "PyTorch",
                "NumPy floor",
                "vs PyTorch",
                "vs NumPy",
                "target",
            ),
        )
    )


if __name__ == "__main__":
    main()
