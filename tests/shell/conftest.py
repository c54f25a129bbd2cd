"""Fixtures for the shell's tests."""

from __future__ import annotations

import pytest

from gradshell.shell.session import Session


@pytest.fixture
def session() -> Session:
    """A fresh safe session, Python prompt style."""
    return Session(viz=False)


@pytest.fixture
def ipy() -> Session:
    """A fresh safe session, IPython prompt style."""
    return Session(viz=False, prompt="ipython")


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path, monkeypatch):
    """Keep REPL history out of the user's real data directory, and make the test's
    directory the session directory (where file magics may read and write)."""
    monkeypatch.setenv("GRADSHELL_DATA_DIR", str(tmp_path / "gsdata"))
    monkeypatch.chdir(tmp_path)


def run(session: Session, source: str) -> str:
    """Run a cell and return its output."""
    return session.run_cell(source).output
