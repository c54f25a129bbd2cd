"""Replay speed: a 1,000-statement transcript through gradshell's own Session.

    uv run python bench/bench_replay.py [--statements 1000] [--repeat 3]

Prints statements per second for the whole replay (parse, run, compare; target
≥ 2,000/s), the time spent parsing, and a floor: the same cells run straight through
`Session.run_cell` with no replay machinery, so the replay overhead is visible.
"""

from __future__ import annotations

import argparse
import time

from gradshell.replay.parser import parse_transcript
from gradshell.replay.runner import gradshell_session, run_transcript

BLOCK = """\
>>> x = torch.ones(2, 2, requires_grad=True)
>>> y = x + 2
>>> y
tensor([[3., 3.],
        [3., 3.]], grad_fn=<AddBackward0>)
>>> z = y * y * 3
>>> out = z.mean()
>>> out
tensor(27., grad_fn=<MeanBackward0>)
>>> out.backward()
>>> x.grad
tensor([[4.5000, 4.5000],
        [4.5000, 4.5000]])
>>> x.grad.zero_()
tensor([[0., 0.],
        [0., 0.]])
>>> print(x.requires_grad, y.is_leaf)
True False
"""
PER_BLOCK = 10


def make_transcript(statements: int) -> str:
    """A one-session transcript of about `statements` statements (seed 002/003 material)."""
    blocks = max(1, -(-(statements - 1) // PER_BLOCK))
    return ">>> import torch\n" + BLOCK * blocks


def best_of(repeat: int, fn) -> tuple[float, float]:
    """The fastest wall-clock and CPU times of `repeat` calls (after one warm-up call)."""
    fn()
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def line(label: str, n: int, times: tuple[float, float]) -> str:
    """One result row: wall ms and statements/s, CPU statements/s."""
    wall, cpu = times
    return f"{label:<32}{wall * 1e3:8.1f} ms {n / wall:8.0f} statements/s  (CPU: {n / cpu:6.0f}/s)"


def main() -> None:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--statements", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    text = make_transcript(args.statements)
    transcript = parse_transcript(text, "bench.gsh")
    n = len(transcript.examples)
    (check,) = run_transcript(transcript)
    assert check.ok and check.passed == n, f"{check.failed} statements failed"
    sources = [e.source for e in transcript.examples]

    def replay() -> None:
        run_transcript(parse_transcript(text, "bench.gsh"))

    def floor() -> None:
        session = gradshell_session("modern", "python")
        for source in sources:
            session.run_cell(source)

    parse_t = best_of(args.repeat, lambda: parse_transcript(text, "bench.gsh"))
    replay_t = best_of(args.repeat, replay)
    floor_t = best_of(args.repeat, floor)

    print(f"transcript: {n} statements, {len(text.splitlines())} lines; best of {args.repeat}")
    print(line("replay (parse + run + compare):", n, replay_t))
    print(line("  of which parsing:", n, parse_t))
    print(line("floor (Session.run_cell only):", n, floor_t))
    print(f"replay overhead over the floor: {(replay_t[0] / floor_t[0] - 1) * 100:+.0f} % wall")
    verdict = "meets" if n / replay_t[0] >= 2000 else "MISSES"
    print(f"target 2,000 statements/s (wall): {verdict}")


if __name__ == "__main__":
    main()
