"""Shared fixtures: every printing test starts from PyTorch's defaults in the modern style."""

import sys
from pathlib import Path

import pytest

# The test double lives next to the tests; make it importable in every pytest import mode.
sys.path.insert(0, str(Path(__file__).parent))

from gradshell.printing import reset_printoptions, set_print_style  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_print_state():
    set_print_style("modern")
    reset_printoptions()
    yield
    set_print_style("modern")
    reset_printoptions()


@pytest.fixture
def legacy():
    """Switch to the legacy (0.2/0.3) style for one test."""
    set_print_style("legacy")
    return None
