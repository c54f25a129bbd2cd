"""Timing helpers shared by the benchmarks: best-of-N per-call time, a table printer."""

from __future__ import annotations

import time


def per_call(fn, *, repeat: int = 5, min_time: float = 0.2) -> float:
    """Best per-call time of `fn` in seconds over `repeat` runs of at least `min_time`."""
    fn()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t0 >= min_time / 4:
            break
        n *= 2
    n = max(1, int(n * (min_time / max(time.perf_counter() - t0, 1e-9))))
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def fmt_time(seconds: float) -> str:
    """Seconds as a short human string (µs or ms)."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    return f"{seconds * 1e3:.2f} ms"


def table(rows: list[tuple], headers: tuple) -> str:
    """A plain Markdown table."""
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]

    def line(r) -> str:
        cells = (str(c).ljust(w) for c, w in zip(r, widths, strict=True))
        return "| " + " | ".join(cells) + " |"

    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(headers), sep, *[line(r) for r in rows]])


def seed_program(torch):
    """The seed tutorial: ones(2,2) -> +2 -> y*y*3 -> mean -> backward -> read and zero grad."""

    def run():
        x = torch.ones(2, 2, requires_grad=True)
        y = x + 2
        z = y * y * 3
        out = z.mean()
        out.backward()
        _ = x.grad
        x.grad.zero_()

    return run
