"""Benchmark: the exact PyTorch-matching kernels against NumPy's own math on 10^6 floats.

    uv run python bench/bench_exact.py [--n N] [--reps R] [op ...]

Prints, per kernel and dtype, the best-of-R CPU time of the NumPy expression a learner
would otherwise get and of the exact kernel (``gradshell.core.kernels``), and their ratio.
The two are timed alternately in one process, by the process's CPU time (NumPy runs these
on one thread), so a busy machine slows both alike and the ratio stays meaningful when the
absolute times do not.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from gradshell.core.kernels import elementwise as E

try:
    from gradshell.core.kernels import softmax as S
except ImportError:  # an older tree (for before/after comparisons): those rows are skipped
    S = None


def _exact_logsumexp(x):
    """torch.logsumexp over the last dim as gradshell computes it (exact exp, sum, log)."""
    from gradshell import torch as gtorch

    return gtorch.logsumexp(gtorch.from_numpy(x), -1).numpy()


def _numpy_sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _numpy_softplus(x):
    return np.where(x > 20, x, np.log1p(np.exp(x)))


def _numpy_log_sigmoid(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def _numpy_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _numpy_log_softmax(x):
    s = x - x.max(axis=-1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))


def _numpy_logsumexp(x):
    m = x.max(axis=-1, keepdims=True)
    return (m + np.log(np.exp(x - m).sum(axis=-1, keepdims=True)))[..., 0]


def _rows(x):
    return x.reshape(-1, 1000)  # 1000 rows of 1000 classes


# name, NumPy's function, the exact kernel, input kind, dtypes
CASES = [
    ("exp", np.exp, E.exp, "any", (np.float32, np.float64)),
    ("log", np.log, E.log, "positive", (np.float32, np.float64)),
    ("tanh", np.tanh, E.tanh, "any", (np.float32, np.float64)),
    ("sin", np.sin, E.sin, "any", (np.float32, np.float64)),
    ("cos", np.cos, E.cos, "any", (np.float32, np.float64)),
    ("expm1", np.expm1, E.expm1, "any", (np.float32, np.float64)),
    ("log1p", np.log1p, E.log1p, "positive", (np.float32, np.float64)),
    ("sigmoid", _numpy_sigmoid, E.sigmoid, "any", (np.float32, np.float64)),
    ("softplus", _numpy_softplus, E.softplus, "any", (np.float32, np.float64)),
    ("log_sigmoid", _numpy_log_sigmoid, E.log_sigmoid, "any", (np.float32,)),
    (
        "pow 2.5",
        lambda x: np.power(x, 2.5),
        lambda x: E.pow_scalar(x, 2.5),
        "positive",
        (np.float32,),
    ),  # fmt: skip
    (
        "tanh_backward",
        lambda y: y * (1 - y * y),
        lambda y: E.tanh_backward(y, y),
        "any",
        (np.float32, np.float64),
    ),  # fmt: skip
    (
        "softmax (rows of 1000)",
        lambda x: _numpy_softmax(_rows(x)),
        lambda x: S.softmax(_rows(x)),
        "any",
        (np.float32, np.float64),
    ),  # fmt: skip
    (
        "log_softmax (rows of 1000)",
        lambda x: _numpy_log_softmax(_rows(x)),
        lambda x: S.log_softmax(_rows(x)),
        "any",
        (np.float32, np.float64),
    ),  # fmt: skip
    (
        "logsumexp (rows of 1000)",
        lambda x: _numpy_logsumexp(_rows(x)),
        lambda x: _exact_logsumexp(_rows(x)),
        "any",
        (np.float32, np.float64),
    ),  # fmt: skip
]


def _ratio(ref, exact, x, reps: int) -> tuple[float, float]:
    """Best times of `ref` and `exact` on `x`, run alternately `reps` times."""
    ref(x), exact(x)  # warm up (caches, lazy imports)
    best_ref = best_ex = float("inf")
    for _ in range(reps):
        t = time.process_time()
        ref(x)
        best_ref = min(best_ref, time.process_time() - t)
        t = time.process_time()
        exact(x)
        best_ex = min(best_ex, time.process_time() - t)
    return best_ref, best_ex


def main() -> None:
    """Time the chosen cases (all by default) and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ops", nargs="*", help="case names to run (prefixes); all if none")
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    base = rng.standard_normal(args.n) * 5
    print(f"{args.n} elements, best of {args.reps} (CPU time), timed alternately")
    print("| kernel | dtype | NumPy ms | exact ms | ratio |")
    print("|---|---|---:|---:|---:|")
    with np.errstate(all="ignore"):
        for name, ref, exact, kind, dtypes in CASES:
            if args.ops and not any(name.startswith(o) for o in args.ops):
                continue
            if S is None and name.startswith(("softmax", "log_softmax", "logsumexp")):
                continue
            for dtype in dtypes:
                x = (np.abs(base) if kind == "positive" else base).astype(dtype)
                t_np, t_ex = _ratio(ref, exact, x, args.reps)
                print(
                    f"| {name} | {np.dtype(dtype).name} | {t_np * 1e3:.2f} | "
                    f"{t_ex * 1e3:.2f} | {t_ex / t_np:.1f}x |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
