"""torch.save / torch.load of whole modules whose class the learner defined (found by the
tutorial corpus: the "save the entire model" recipe). In the shell the learner's code runs
in a namespace named `__main__` that is not Python's `__main__` module: saving writes the
class as `__main__.Net`, as PyTorch does for a script's class, and torch.load with
weights_only=False finds it in the session's namespace."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from support import oracle
from support.tutorials import run_in_gradshell, run_in_pytorch

PROGRAM = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.tag = 'v1'

    def forward(self, x):
        return torch.sigmoid(self.fc(x))


torch.manual_seed(0)
net = Net()
torch.save(net, 'net.pt')
try:
    torch.load('net.pt')
except Exception as e:
    print(type(e).__name__)
loaded = torch.load('net.pt', weights_only=False)
print(loaded, type(loaded).__name__, loaded.tag, loaded.training)
print(torch.equal(loaded.fc.weight, net.fc.weight), loaded.fc.weight.requires_grad)
print(loaded(torch.ones(1, 3)))
torch.save({'model': net, 'epoch': 2}, 'both.pt')
print(torch.load('both.pt', weights_only=False)['model'].fc.bias)
"""

READ_BACK = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.tag = 'v1'

    def forward(self, x):
        return torch.sigmoid(self.fc(x))


m = torch.load('net.pt', weights_only=False)
print(type(m).__name__, m.tag, m.fc.weight.shape)
"""


def test_whole_learner_module_saves_and_loads(tmp_path: Path, monkeypatch) -> None:
    program = tmp_path / "save_whole.py"
    program.write_text(PROGRAM, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    expected = run_in_pytorch(program)
    for leftover in tmp_path.glob("*.pt"):
        leftover.unlink()
    assert run_in_gradshell(program) == expected


def test_pytorch_reads_the_learner_module_gradshell_saved(tmp_path: Path, monkeypatch) -> None:
    program = tmp_path / "save_whole.py"
    program.write_text(PROGRAM, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    # the archive's serialization id is a random draw nothing reads: fixed, so the same
    # program writes the same bytes and PyTorch's recorded answer is keyed by them
    monkeypatch.setattr(os, "urandom", lambda n: bytes(n))
    run_in_gradshell(program)
    saved = (tmp_path / "net.pt").read_bytes()

    def read_back(_torch) -> tuple:
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "net.pt").write_bytes(saved)
            (Path(tmp) / "read_back.py").write_text(READ_BACK, encoding="utf-8")
            done = subprocess.run(
                [sys.executable, "read_back.py"],
                capture_output=True,
                text=True,
                cwd=tmp,
                timeout=300,
                check=False,
            )
        return done.stdout, done.returncode

    digest = hashlib.sha256(saved).hexdigest()[:16]
    out, code = oracle.computed(f"python read_back.py {digest}", read_back, oracle.torch())
    assert (out, code) == ("Net v1 torch.Size([2, 3])\n", 0)
