"""The point of the recordings: without PyTorch installed, a wrong gradient still fails.
A run with PyTorch hidden and sigmoid's backward made 1% off (support.wrong_sigmoid_gradient)
must fail the differential test of sigmoid on the gradient's values."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.oracle import ORACLE

ROOT = Path(__file__).resolve().parents[2]


def test_a_sigmoid_gradient_one_percent_off_fails_without_pytorch():
    if ORACLE.mode == "record":
        return  # the recordings it replays are being written (the other runs check this)
    env = dict(os.environ, GRADSHELL_HIDE_TORCH="1", PYTHONPATH=str(ROOT / "tests" / "lib"))
    for name in ("GRADSHELL_ORACLE", "GRADSHELL_ORACLE_DIR"):
        env.pop(name, None)  # the committed recordings, replayed, whatever this run does
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-n",
            "0",
            "-p",
            "support.wrong_sigmoid_gradient",
            "tests/ops/test_nn.py",
            "-k",
            "sigmoid",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    out = done.stdout + done.stderr
    assert "compared against recordings of PyTorch" in out, out
    assert done.returncode == 1, out
    assert "FAILED tests/ops/test_nn.py::test_activations[sigmoid] - AssertionError" in out, out
    assert "grad of input 0" in out and "relative difference among violations: 0.0099" in out
