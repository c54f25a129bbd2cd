"""Fixtures for the lesson tests."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path, monkeypatch):
    """Keep progress files and REPL history out of the user's real data directory."""
    monkeypatch.setenv("GRADSHELL_DATA_DIR", str(tmp_path / "gsdata"))
