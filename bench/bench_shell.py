"""Shell benchmarks (issue: the shell), printed as ratios; no timed tests.

1. Start-up to the first prompt (the REPL in a pseudo-terminal) and `gradshell -c` with
   the seed program, each against `python -c "import torch; <the same program>"`
   (target: at most 0.2x).
2. What checking and guarding add to one statement: `Session.run_cell(stmt)` against
   running the same code directly with `exec` (target: under 100 µs), and the cost of
   the guards inside a loop.
3. What the sandboxed kernel process adds to one statement: `KernelSession.run_cell`
   (the pipe round trip, the JSON, the kernel's bookkeeping) against the in-process
   `Session.run_cell` (target: under 1 ms), and a kernel's start until it is ready.

Run: `uv run python bench/bench_shell.py`.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(__file__))
from common import fmt_time, per_call, table  # noqa: E402

SEED = (
    "x = torch.ones(2, 2, requires_grad=True)\n"
    "y = x + 2\n"
    "z = y * y * 3\n"
    "out = z.mean()\n"
    "out.backward()\n"
    "print(x.grad)\n"
)
PY = sys.executable
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
# Fresh processes cache compiled bytecode as Python does on a user's machine (pip-installed
# torch and NumPy ship theirs precompiled); an environment that sets
# PYTHONDONTWRITEBYTECODE would make every start recompile gradshell's sources.
FRESH_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _wall(cmd: list[str], env: dict | None = None) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=FRESH_ENV if env is None else env)
    return time.perf_counter() - t0


def median_wall(cmd: list[str], env: dict | None = None) -> float:
    """Median wall time of a fresh process over RUNS runs (after one warm-up)."""
    _wall(cmd, env)
    return statistics.median(_wall(cmd, env) for _ in range(RUNS))


def first_prompt_time() -> float | None:
    """Seconds from starting `gradshell` in a pseudo-terminal to its first prompt."""
    try:
        import pexpect
    except ImportError:
        return None
    times = []
    with tempfile.TemporaryDirectory() as data:
        env = dict(FRESH_ENV, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm", GRADSHELL_DATA_DIR=data)
        for i in range(RUNS + 1):
            t0 = time.perf_counter()
            child = pexpect.spawn(PY, ["-m", "gradshell"], env=env, timeout=60)
            child.expect(b">>>")
            elapsed = time.perf_counter() - t0
            child.sendeof()
            child.expect(pexpect.EOF)
            child.close()
            if i:
                times.append(elapsed)
    return statistics.median(times)


def startup() -> list[tuple]:
    torch_prog = median_wall([PY, "-c", "import torch\n" + SEED])
    torch_import = median_wall([PY, "-c", "import torch"])
    gs_prog = median_wall([PY, "-m", "gradshell", "-c", "import torch\n" + SEED])
    floor = median_wall([PY, "-c", "from gradshell import torch\n" + SEED])
    rows = [
        ("python -c 'import torch; seed'", fmt_s(torch_prog), "1.00x"),
        ("gradshell -c 'import torch; seed'", fmt_s(gs_prog), f"{gs_prog / torch_prog:.2f}x"),
        (
            "python -c 'from gradshell import torch; seed' (no shell)",
            fmt_s(floor),
            f"{floor / torch_prog:.2f}x",
        ),
    ]
    prompt = first_prompt_time()
    if prompt is not None:
        rows.append(
            ("gradshell: start-up to first prompt", fmt_s(prompt), f"{prompt / torch_prog:.2f}x")
        )
    rows.append(
        (
            "python -c 'import torch' (for scale)",
            fmt_s(torch_import),
            f"{torch_import / torch_prog:.2f}x",
        )
    )
    return rows


def fmt_s(seconds: float) -> str:
    return f"{seconds * 1e3:.0f} ms"


STATEMENTS = [
    "a = 1 + 2",
    "y = x + 2",
    "z = y * y * 3",
    "out = z.mean()",
    "print(x.shape, file=None)",
    "g = [i * i for i in range(10)]",
    "s = 'v={:.2f}'.format(a * 1.5)",
]


def per_statement() -> list[tuple]:
    from gradshell import torch
    from gradshell.shell.session import Session

    session = Session(viz=False)
    session.run_cell("import torch\nx = torch.ones(2, 2, requires_grad=True)\na = 3")
    ns_direct = {"torch": torch, "x": torch.ones(2, 2, requires_grad=True), "a": 3}
    devnull = open(os.devnull, "w")  # noqa: SIM115
    rows = []
    for stmt in STATEMENTS:
        session.run_cell(stmt)
        code = compile(stmt, "<direct>", "exec")
        saved = sys.stdout
        sys.stdout = devnull
        try:
            direct_src = per_call(lambda s=stmt: exec(compile(s, "<direct>", "exec"), ns_direct))
            direct_code = per_call(lambda c=code: exec(c, ns_direct))
        finally:
            sys.stdout = saved
        shell = per_call(lambda s=stmt: session.run_cell(s))
        rows.append(
            (
                stmt,
                fmt_time(direct_code),
                fmt_time(direct_src),
                fmt_time(shell),
                fmt_time(shell - direct_src),
                f"{shell / direct_src:.1f}x",
            )
        )
    devnull.close()
    return rows


def kernel_per_statement() -> list[tuple]:
    from gradshell.kernel.client import KernelSession
    from gradshell.shell.session import Session

    setup = "import torch\nx = torch.ones(2, 2, requires_grad=True)\na = 3"
    session = Session(viz=False)
    session.run_cell(setup)
    rows = []
    with tempfile.TemporaryDirectory() as where:
        from gradshell.shell.files import PathPolicy

        kernel = KernelSession(viz=False, policy=PathPolicy(Path(where)))
        try:
            kernel.run_cell(setup)
            for stmt in STATEMENTS:
                inproc = per_call(lambda s=stmt: session.run_cell(s))
                remote = per_call(lambda s=stmt: kernel.run_cell(s))
                rows.append(
                    (
                        stmt,
                        fmt_time(inproc),
                        fmt_time(remote),
                        fmt_time(remote - inproc),
                        f"{remote / inproc:.1f}x",
                    )
                )
        finally:
            kernel.close()
    return rows


def kernel_start() -> list[tuple]:
    from gradshell.kernel.client import KernelSession
    from gradshell.shell.files import PathPolicy

    times = []
    with tempfile.TemporaryDirectory() as where:
        for _ in range(RUNS):
            t0 = time.perf_counter()
            kernel = KernelSession(viz=True, policy=PathPolicy(Path(where)))
            kernel.wait_ready()
            times.append(time.perf_counter() - t0)
            kernel.close()
    return [("kernel: start, import, confine, ready", fmt_s(statistics.median(times)))]


LOOP = "acc = 0\nfor i in range(2000):\n    acc = acc + i * 2\n    v = w.shape[0]\n"


def guards_in_a_loop() -> list[tuple]:
    from gradshell import torch
    from gradshell.shell.session import Session

    session = Session(viz=False)
    session.run_cell("import torch\nw = torch.ones(3)")
    ns = {"w": torch.ones(3)}
    code = compile(LOOP, "<direct>", "exec")
    direct = per_call(lambda: exec(code, ns), min_time=0.5)
    shell = per_call(lambda: session.run_cell(LOOP), min_time=0.5)
    per_iter = (shell - direct) / 2000
    return [
        (
            "2,000-iteration loop (add, mul, attr, subscript)",
            fmt_time(direct),
            fmt_time(shell),
            f"{shell / direct:.1f}x",
            fmt_time(per_iter),
        )
    ]


def main() -> None:
    print("## Start-up (fresh processes, median of", RUNS, "runs; target <= 0.20x)\n")
    print(table(startup(), ("what", "wall", "ratio to python -c 'import torch; seed'")))
    print("\n## One statement: Session.run_cell vs exec (target: added < 100 µs)\n")
    print(
        table(
            per_statement(),
            ("statement", "exec(code)", "exec(source)", "run_cell", "added", "ratio"),
        )
    )
    print("\n## One statement through the sandboxed kernel (target: added < 1 ms)\n")
    print(
        table(
            kernel_per_statement(),
            ("statement", "Session.run_cell", "KernelSession.run_cell", "added", "ratio"),
        )
    )
    print("\n## Kernel start (in the background while the first prompt waits for input)\n")
    print(table(kernel_start(), ("what", "wall")))
    print("\n## Guards inside a loop\n")
    print(
        table(guards_in_a_loop(), ("program", "exec", "run_cell", "ratio", "added per iteration"))
    )


if __name__ == "__main__":
    main()
