"""Shared fixtures: every printing test starts from PyTorch's defaults in the modern style."""

import pytest

from gradshell.printing import reset_printoptions, set_print_style


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
