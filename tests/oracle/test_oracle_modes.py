"""How a run picks the oracle's mode, and what a run without PyTorch says about it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.oracle import choose_mode, recorded_version

ROOT = Path(__file__).resolve().parents[2]


def test_record_when_asked(monkeypatch):
    monkeypatch.setenv("GRADSHELL_ORACLE", "record")
    assert choose_mode() == "record"


def test_hiding_torch_replays(monkeypatch):
    monkeypatch.delenv("GRADSHELL_ORACLE", raising=False)
    monkeypatch.setenv("GRADSHELL_HIDE_TORCH", "1")
    assert choose_mode() == "replay"


def test_the_recordings_name_their_pytorch_version():
    assert recorded_version().startswith("2.13")


def test_a_run_without_pytorch_says_it_compared_against_recordings():
    env = dict(os.environ, GRADSHELL_HIDE_TORCH="1")
    env.pop("GRADSHELL_ORACLE", None)
    probe = "tests/oracle/test_oracle_modes.py::test_torch_is_not_importable_when_hidden"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", probe],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    line = (
        "gradshell: PyTorch is not installed; differential tests compared against "
        f"recordings of PyTorch {recorded_version()} (tests/oracle)"
    )
    assert line in done.stdout


def test_torch_is_not_importable_when_hidden():
    if os.environ.get("GRADSHELL_HIDE_TORCH") != "1":
        return  # the subprocess above runs this with PyTorch hidden
    import importlib

    try:
        importlib.import_module("torch")
    except ImportError:
        return
    raise AssertionError("torch imported although hidden")
