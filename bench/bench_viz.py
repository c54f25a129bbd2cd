"""Visualisation benchmarks (issue 8), printed, never asserted.

1. With visualisation on, each statement of the seed program run in a shell Session
   (parse, check, run, record events, render panels to text): target ≤ 2 ms each.
2. With visualisation off, the core's event hooks (one truth test of `events.active` at
   each site) against the seed benchmark of bench_core: target < 5 %.

Run: `uv run python bench/bench_viz.py`.
"""

from __future__ import annotations

import os
import sys
import time
import timeit

sys.path.insert(0, os.path.dirname(__file__))
from common import fmt_time, per_call, seed_program, table  # noqa: E402

from gradshell import torch as gtorch  # noqa: E402
from gradshell.core import events  # noqa: E402
from gradshell.shell.session import Session  # noqa: E402
from gradshell.viz.magics import state_of  # noqa: E402

SEED_STATEMENTS = [
    "x = torch.ones(2, 2, requires_grad=True)",
    "y = x + 2",
    "z = y * y * 3",
    "out = z.mean()",
    "out.backward()",
    "x.grad",
    "x.grad.zero_()",
    "x.grad = None",
]
SEED_000_PART_2 = [
    "x = torch.tensor([2., 2., 2.], requires_grad=True)",
    "y = x * 2",
    "y.backward(torch.tensor([0.1, 1, 10]), retain_graph=True)",
    "y.backward(torch.tensor([0.1, 1, 10]), retain_graph=True)",
    "x.grad.data.zero_()",
    "%explain y",
]


def session(viz: bool, color: bool) -> Session:
    s = Session(viz=viz)
    state = state_of(s)
    state.width = 100
    state.color = color
    s.run_cell("import torch")
    return s


def statement_times(statements: list[str], viz: bool, color: bool, rounds: int = 300) -> dict:
    """Best time of each statement over `rounds` runs of the whole program."""
    s = session(viz, color)
    best = [float("inf")] * len(statements)
    shown = [False] * len(statements)
    for _ in range(rounds):
        for i, src in enumerate(statements):
            t0 = time.perf_counter()
            r = s.run_cell(src)
            best[i] = min(best[i], time.perf_counter() - t0)
            shown[i] = bool(r.visual)
            if r.error is not None:
                raise RuntimeError(r.output)
    return list(zip(best, shown, strict=True))


class _CountingList(list):
    """An empty subscriber list that counts how often the core asks whether it is empty."""

    checks = 0

    def __len__(self) -> int:
        _CountingList.checks += 1
        return 0


def hook_checks_per_run(run) -> int:
    """How many event-hook truth tests one run of the seed program makes."""
    saved = events.active
    events.active = _CountingList()
    try:
        _CountingList.checks = 0
        run()
        return _CountingList.checks
    finally:
        events.active = saved


def main() -> None:
    """Print both tables."""
    rows = []
    for label, program in (
        ("seed 000 (modern)", SEED_STATEMENTS),
        ("seed 000 part 2", SEED_000_PART_2),
    ):
        on = statement_times(program, viz=True, color=False)
        on_color = statement_times(program, viz=True, color=True, rounds=100)
        off = statement_times(program, viz=False, color=False)
        for i, src in enumerate(program):
            t_on, shown = on[i]
            rows.append(
                (
                    f"{label}: {src}",
                    fmt_time(off[i][0]),
                    fmt_time(t_on),
                    fmt_time(on_color[i][0]),
                    "panel" if shown else "",
                    "yes" if max(t_on, on_color[i][0]) <= 2e-3 else "NO",
                )
            )
    print("Shell statements, best of 300 (100 with colour) runs; target ≤ 2 ms with viz on")
    print(
        table(
            rows,
            ("statement", "viz off", "viz on", "viz on, colour", "shown", "≤ 2 ms"),
        )
    )
    print()

    run = seed_program(gtorch)
    seed = per_call(run, min_time=0.5)
    checks = hook_checks_per_run(run)
    empty: list = []
    per_check = (
        min(timeit.repeat("if empty: pass", globals={"empty": empty}, number=200_000, repeat=7))
        / 200_000
    )
    cost = checks * per_check
    stop = events.subscribe(lambda ev: None)
    try:
        listened = per_call(run, min_time=0.5)
    finally:
        stop()
    print("Event hooks in the core with visualisation off (seed program of bench_core)")
    print(
        table(
            [
                ("seed program, per iteration (no subscriber)", fmt_time(seed), ""),
                ("event-hook truth tests per iteration", str(checks), ""),
                ("one truth test of an empty list", f"{per_check * 1e9:.1f} ns", ""),
                (
                    "hooks' cost with visualisation off",
                    fmt_time(cost),
                    f"{cost / seed:.2%} (target < 5%)",
                ),
                (
                    "for comparison: with a no-op subscriber",
                    fmt_time(listened),
                    f"{listened / seed - 1:+.1%}",
                ),
            ],
            ("measure", "time", "share of the seed program"),
        )
    )


if __name__ == "__main__":
    main()
