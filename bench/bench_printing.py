"""Benchmark: printing a tensor with gradshell versus PyTorch, side by side.

    uv run python bench/bench_printing.py [--repeat N]

For each case the same values are printed by gradshell's modern style (on a gradshell
tensor), by PyTorch's `repr`, and by NumPy's `repr` (a hand-written-C floor for the same
job); the legacy style is timed too, for information. Ratios are gradshell time / other
time: below 1.0 means gradshell is faster. Nothing is asserted: speed is read, not tested.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gradshell import torch as gtorch  # noqa: E402
from gradshell.printing import legacy_repr, modern_repr  # noqa: E402


def best_time(fn, repeat: int) -> float:
    """Median of the per-call times of `repeat` runs, each long enough to time reliably."""
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    runs = timer.repeat(repeat=repeat, number=number)
    return statistics.median(runs) / number


def cases() -> list[tuple[str, np.ndarray]]:
    rng = np.random.default_rng(0)
    return [
        (
            "1,000,000 float32 (1000x1000, summarised)",
            rng.standard_normal((1000, 1000), np.float32),
        ),
        ("1,000 float32 (1-D, printed in full)", rng.standard_normal(1000, np.float32)),
        ("1,000 int64 (10x100, printed in full)", rng.integers(-500, 500, (10, 100))),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        torch = None
        print("PyTorch is not installed: only gradshell and NumPy are timed.")

    header = f"{'case':44} {'gradshell':>11} {'torch':>11} {'numpy':>11} {'vs torch':>9} {'vs numpy':>9} {'legacy':>11}"
    print(header)
    print("-" * len(header))
    for name, values in cases():
        ours = gtorch.from_numpy(values)
        t_ours = best_time(lambda ours=ours: modern_repr(ours), args.repeat)
        t_legacy = best_time(lambda ours=ours: legacy_repr(ours), args.repeat)
        t_numpy = best_time(lambda values=values: repr(values), args.repeat)
        if torch is not None:
            theirs = torch.from_numpy(values)
            if repr(theirs) != modern_repr(ours):
                raise SystemExit(f"{name}: gradshell and PyTorch print different text")
            t_torch = best_time(lambda theirs=theirs: repr(theirs), args.repeat)
            torch_col, ratio = f"{t_torch * 1e3:9.3f}ms", f"{t_ours / t_torch:9.3f}"
        else:
            torch_col, ratio = f"{'-':>11}", f"{'-':>9}"
        print(
            f"{name:44} {t_ours * 1e3:9.3f}ms {torch_col} {t_numpy * 1e3:9.3f}ms "
            f"{ratio} {t_ours / t_numpy:9.3f} {t_legacy * 1e3:9.3f}ms"
        )


if __name__ == "__main__":
    main()
