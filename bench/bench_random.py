"""Benchmark gradshell's random generator against PyTorch's CPU generator.

Run ``uv run python bench/bench_random.py [--quick] [--cpu]``.  For each function it times
gradshell (``gradshell.core.random.Generator``) and PyTorch (``torch.set_num_threads(1)``) in
the same process, alternating the two and keeping the best of several rounds, at 10^6
elements and at small sizes, and prints a table with the ratio gradshell / torch.  ``--cpu``
measures process CPU time instead of wall time (steadier on a busy machine; it also runs
gradshell on one thread, since CPU time would count every worker).  It needs PyTorch.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

try:
    import torch
except ImportError:  # pragma: no cover - the benchmark needs the oracle
    sys.exit("bench_random.py needs PyTorch (pip install torch==2.13.0)")

sys.path.insert(0, ".")
from gradshell.core.random import Generator, get_threads, set_threads  # noqa: E402

BIG = 1_000_000
SMALL = (1, 10, 50, 99)


def cases(n: int):
    """(name, gradshell callable, torch callable) for a size ``n``."""
    g = Generator(0)
    torch.manual_seed(0)
    p32 = torch.rand(n)
    p32n = p32.numpy()
    ones = torch.ones(n)
    zeros = torch.zeros(n)
    onesn, zerosn = ones.numpy(), zeros.numpy()
    probs = torch.rand(1000)
    probsn = probs.numpy()
    t32 = torch.empty(n)
    t64 = torch.empty(n, dtype=torch.float64)
    tl = torch.empty(n, dtype=torch.int64)
    k = min(n, 1000)
    f32, f64 = np.float32, np.float64
    return [
        ("rand f32", lambda: g.rand((n,)), lambda: torch.rand(n)),
        ("rand f64", lambda: g.rand((n,), f64), lambda: torch.rand(n, dtype=torch.float64)),
        (
            "uniform_(0.1,0.7) f32",
            lambda: g.uniform((n,), 0.1, 0.7),
            lambda: t32.uniform_(0.1, 0.7),
        ),
        (
            "uniform_(0.1,0.7) f64",
            lambda: g.uniform((n,), 0.1, 0.7, f64),
            lambda: t64.uniform_(0.1, 0.7),
        ),
        ("randn f32", lambda: g.randn((n,)), lambda: torch.randn(n)),
        ("randn f64", lambda: g.randn((n,), f64), lambda: torch.randn(n, dtype=torch.float64)),
        ("normal_(1.5,0.3) f32", lambda: g.normal((n,), 1.5, 0.3), lambda: t32.normal_(1.5, 0.3)),
        (
            "normal_(1.5,0.3) f64",
            lambda: g.normal((n,), 1.5, 0.3, f64),
            lambda: t64.normal_(1.5, 0.3),
        ),
        (
            "normal(T,T) f32",
            lambda: g.normal_tensor(zerosn, onesn),
            lambda: torch.normal(zeros, ones),
        ),
        ("randint(0,10)", lambda: g.randint((n,), 0, 10), lambda: torch.randint(0, 10, (n,))),
        (
            "randint(0,2^40)",
            lambda: g.randint((n,), 0, 2**40),
            lambda: torch.randint(0, 2**40, (n,)),
        ),
        ("random_() i64", lambda: g.random_((n,), np.int64), lambda: tl.random_()),
        ("randperm", lambda: g.randperm(n), lambda: torch.randperm(n)),
        ("bernoulli(p) f32", lambda: g.bernoulli(p32n), lambda: torch.bernoulli(p32)),
        ("bernoulli_(0.3) f32", lambda: g.bernoulli_((n,), 0.3, f32), lambda: t32.bernoulli_(0.3)),
        ("exponential_ f32", lambda: g.exponential((n,)), lambda: t32.exponential_()),
        (
            "multinomial(1000, k, repl)",
            lambda: g.multinomial(probsn, k, True),
            lambda: torch.multinomial(probs, k, True),
        ),
        (
            "multinomial(1000, k)",
            lambda: g.multinomial(probsn, k),
            lambda: torch.multinomial(probs, k),
        ),
        (
            "dropout(p=0.3) f32",
            lambda: g.dropout_mask((n,), 0.3),
            lambda: torch.nn.functional.dropout(ones, 0.3, True),
        ),
    ]


CLOCK = time.perf_counter


def best(fn, number: int, rounds: int) -> float:
    """Best mean time per call in seconds over ``rounds`` rounds of ``number`` calls."""
    out = float("inf")
    for _ in range(rounds):
        t0 = CLOCK()
        for _ in range(number):
            fn()
        out = min(out, (CLOCK() - t0) / number)
    return out


def main() -> None:
    """Print the table."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer rounds")
    ap.add_argument("--cpu", action="store_true", help="CPU time, gradshell on one thread")
    args = ap.parse_args()
    torch.set_num_threads(1)
    if args.cpu:
        global CLOCK
        CLOCK = time.process_time
        set_threads(1)
    print(f"gradshell threads: {get_threads()}, clock: {'cpu' if args.cpu else 'wall'}")
    rounds = 3 if args.quick else 7
    print(f"{'function':28} {'n':>8} {'gradshell':>12} {'torch':>12} {'ratio':>7}")
    for n in (BIG, *SMALL):
        number = 3 if n == BIG else 300
        for name, ours, theirs in cases(n):
            ours()  # warm up (lazy tables, page faults)
            theirs()
            t_ours = t_torch = float("inf")
            for _ in range(rounds):  # alternate so that machine noise hits both alike
                t_ours = min(t_ours, best(ours, number, 1))
                t_torch = min(t_torch, best(theirs, number, 1))
            unit, scale = ("ms", 1e3) if n == BIG else ("us", 1e6)
            print(
                f"{name:28} {n:>8} {t_ours * scale:>9.2f} {unit} {t_torch * scale:>9.2f} {unit} "
                f"{t_ours / t_torch:>7.2f}"
            )


if __name__ == "__main__":
    main()
