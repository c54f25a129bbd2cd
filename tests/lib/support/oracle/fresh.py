"""PyTorch's process-wide settings put back as a fresh process has them at the start of each
test file, so that what a file asks PyTorch (and what it answers) does not depend on which
files ran before it: recording the whole suite gives each file's recording as recording
that file alone does.

The settings: the default generator's state, the intra-op thread count (reductions split
their work by it), the default dtype and device, print options, grad mode, deterministic
algorithms and anomaly detection. While recording, the thread count is pinned to
`RECORD_THREADS` whatever the machine's cores, so recordings do not depend on the machine.
"""

from __future__ import annotations

import importlib

#: the intra-op thread count PyTorch answers with while recording
RECORD_THREADS = 2


class FreshTorch:
    """A snapshot of real PyTorch's process-wide settings, taken before any test ran."""

    def __init__(self, torch, threads: int | None = None) -> None:
        if threads is not None:
            torch.set_num_threads(threads)
        self.torch = torch
        self.rng = torch.get_rng_state()
        self.threads = torch.get_num_threads()
        self.dtype = torch.get_default_dtype()
        self.device = torch.get_default_device()
        self.print_opts = dict(vars(_print_opts()))
        self.grad = torch.is_grad_enabled()
        self.deterministic = torch.are_deterministic_algorithms_enabled()
        self.anomaly = torch.is_anomaly_enabled()

    def restore(self) -> None:
        """Put every setting back as it was when the snapshot was taken."""
        torch = self.torch
        torch.set_rng_state(self.rng)
        if torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)
        torch.set_default_dtype(self.dtype)
        if torch.get_default_device() != self.device:
            # (set only when changed: setting one installs a mode every call goes through)
            torch.set_default_device(None if self.device.type == "cpu" else self.device)
        vars(_print_opts()).update(self.print_opts)
        torch.set_grad_enabled(self.grad)
        if torch.are_deterministic_algorithms_enabled() != self.deterministic:
            torch.use_deterministic_algorithms(self.deterministic)
        if torch.is_anomaly_enabled() != self.anomaly:
            torch.set_anomaly_enabled(self.anomaly)


def _print_opts():
    # imported by name: a test file's `import torch` would give the oracle's proxy
    return importlib.import_module("torch._tensor_str").PRINT_OPTS


_FRESH: list[FreshTorch] = []


def take(torch, threads: int | None = None) -> None:
    """Snapshot `torch` (the real module) once per run, at the start."""
    if not _FRESH:
        _FRESH.append(FreshTorch(torch, threads))


def restore() -> None:
    """Back to the snapshot (nothing when no snapshot was taken: PyTorch is absent)."""
    if _FRESH:
        _FRESH[0].restore()
