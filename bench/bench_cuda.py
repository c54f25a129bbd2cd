"""CUDA benchmarks (issue: CUDA through CuPy): an MLP training step and a 4096² matmul
forward+backward on gradshell's CuPy backend vs PyTorch CUDA, in one run. Needs an NVIDIA
GPU with CuPy and a CUDA build of PyTorch; without them it says so and exits.

    uv run --extra cuda python bench/bench_cuda.py
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import fmt_time, table  # noqa: E402

from gradshell import torch as gtorch  # noqa: E402


def _available() -> str | None:
    """Why the benchmark cannot run here, or None when it can."""
    if not gtorch.cuda.is_available():
        return "gradshell sees no GPU (CuPy missing or no NVIDIA device)"
    try:
        import torch
    except ImportError:
        return "PyTorch is not installed"
    if not torch.cuda.is_available():
        return "PyTorch has no CUDA (a CPU-only build)"
    return None


def _sync(mod) -> None:
    mod.cuda.synchronize()


def timed(mod, fn, repeat: int = 20) -> float:
    """Best wall time of `fn` over `repeat` runs, with the device synchronised."""
    fn()
    _sync(mod)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        _sync(mod)
        best = min(best, time.perf_counter() - t0)
    return best


def matmul_case(mod, n: int = 4096):
    """(A @ B).sum() forward and backward, float32, on the GPU."""
    a = mod.randn(n, n, device="cuda", requires_grad=True)
    b = mod.randn(n, n, device="cuda", requires_grad=True)

    def run():
        a.grad = None
        b.grad = None
        (a @ b).sum().backward()

    return run


def mlp_case(mod, batch: int = 128):
    """One SGD step of a 784-256-10 ReLU MLP with cross-entropy."""
    model = mod.nn.Sequential(mod.nn.Linear(784, 256), mod.nn.ReLU(), mod.nn.Linear(256, 10)).to(
        "cuda"
    )
    opt = mod.optim.SGD(model.parameters(), lr=0.01)
    x = mod.randn(batch, 784, device="cuda")
    y = mod.randint(0, 10, (batch,), device="cuda")
    loss_fn = mod.nn.CrossEntropyLoss()

    def run():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    return run


def main() -> int:
    """Print the CUDA table, or why it cannot be made here."""
    why = _available()
    if why is not None:
        print(f"bench_cuda: skipped: {why}")
        return 0
    import torch

    rows = []
    for name, make in (
        ("MLP step 784-256-10, batch 128", mlp_case),
        ("(A @ B).sum() fwd+bwd, 4096² float32", matmul_case),
    ):
        g = timed(gtorch, make(gtorch))
        p = timed(torch, make(torch))
        rows.append((name, fmt_time(g), fmt_time(p), f"{g / p:.2f}×", "≤1.5×"))
    print(f"GPU: {torch.cuda.get_device_name(0)}")
    print(table(rows, ("benchmark", "gradshell (CuPy)", "PyTorch CUDA", "ratio", "target")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
