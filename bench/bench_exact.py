"""Benchmark: the exact PyTorch-matching kernels against NumPy's own ufuncs on 10^6 floats.

    uv run python bench/bench_exact.py

Prints, per op and dtype, the best-of-N time of NumPy's function and of the exact kernel
(``gradshell.core.kernels``) and their ratio.
"""

from __future__ import annotations

import time

import numpy as np

from gradshell.core.kernels import elementwise as E

N = 1_000_000


def _best(fn, x, reps: int = 5) -> float:
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        fn(x)
        best = min(best, time.perf_counter() - t)
    return best


def _numpy_sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _numpy_softplus(x):
    return np.where(x > 20, x, np.log1p(np.exp(x)))


CASES = [
    ("exp", np.exp, E.exp, False),
    ("log", np.log, E.log, True),
    ("tanh", np.tanh, E.tanh, False),
    ("sin", np.sin, E.sin, False),
    ("cos", np.cos, E.cos, False),
    ("expm1", np.expm1, E.expm1, False),
    ("log1p", np.log1p, E.log1p, True),
    ("sigmoid", _numpy_sigmoid, E.sigmoid, False),
    ("softplus", _numpy_softplus, E.softplus, False),
]


def main() -> None:
    """Time every case on float32 and float64 and print a Markdown table."""
    rng = np.random.default_rng(0)
    base = rng.standard_normal(N) * 5
    print("| op | dtype | NumPy ms | exact ms | ratio |")
    print("|---|---|---:|---:|---:|")
    with np.errstate(all="ignore"):
        for dtype in (np.float32, np.float64):
            for name, ref, exact, positive in CASES:
                x = (np.abs(base) if positive else base).astype(dtype)
                t_np, t_ex = _best(ref, x), _best(exact, x, reps=3)
                print(
                    f"| {name} | {np.dtype(dtype).name} | {t_np * 1e3:.1f} | "
                    f"{t_ex * 1e3:.1f} | {t_ex / t_np:.1f}x |"
                )


if __name__ == "__main__":
    main()
