"""Fixtures shared by every test: real PyTorch (the oracle) when installed, and a clean
print style and grad mode around each test."""

from __future__ import annotations

import pytest


@pytest.fixture
def real_torch():
    """The real PyTorch, or skip the test when it is not installed."""
    return pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _clean_global_state():
    """Each test starts in the modern style with grad mode on."""
    from gradshell.core import grad_mode

    yield
    grad_mode.state.enabled = True
    grad_mode.state.inference = False
    try:
        from gradshell.printing import set_print_style

        set_print_style("modern")
    except ImportError:
        pass
