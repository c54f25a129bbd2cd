"""Fixtures for the visualisation tests: sessions with visualisation on, rendered at a
fixed width without colour, and golden files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gradshell.shell.session import Session
from gradshell.viz.magics import state_of

GOLDEN = Path(__file__).parent / "golden"
WIDTH = 100


def make_session(**kwargs) -> Session:
    """A session with visualisation on, rendering at WIDTH columns without colour."""
    s = Session(**kwargs)
    state = state_of(s)
    state.width = WIDTH
    state.color = False
    r = s.run_cell("import torch")
    assert r.error is None, r.output
    return s


@pytest.fixture(autouse=True)
def _session_dir_is_tmp(tmp_path, monkeypatch):
    """The test's directory is the session directory (where %graph may write files)."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def vs() -> Session:
    """A modern-style session with visualisation on."""
    return make_session()


@pytest.fixture
def legacy() -> Session:
    """A legacy-style (PyTorch 0.3) session with visualisation on."""
    return make_session(style="legacy")


def transcript(session: Session, cells: list[str]) -> str:
    """Run cells; the inputs with both channels, as the REPL would show them."""
    out = []
    for cell in cells:
        r = session.run_cell(cell)
        out.append(f">>> {cell}\n{r.output}{r.visual}")
    return "".join(out)


def check_golden(name: str, text: str) -> None:
    """Compare `text` with tests/viz/golden/NAME (GRADSHELL_UPDATE_GOLDEN=1 rewrites it)."""
    path = GOLDEN / name
    if os.environ.get("GRADSHELL_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"missing golden file {path} (run with GRADSHELL_UPDATE_GOLDEN=1)"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{name} differs from its golden file"


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path, monkeypatch):
    """Keep REPL history out of the user's real data directory."""
    monkeypatch.setenv("GRADSHELL_DATA_DIR", str(tmp_path / "gsdata"))


@pytest.fixture
def run_cells():
    """`run_cells(session, cells)`: the transcript of both channels."""
    return transcript


@pytest.fixture
def golden():
    """`golden(name, text)`: compare with a golden file."""
    return check_golden


@pytest.fixture
def new_session():
    """`new_session(**kwargs)`: another visualising session."""
    return make_session
