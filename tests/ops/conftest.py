"""Op-library tests: make the shared helpers (gradcheck.py) importable and start every test
in the modern print style with grad mode on."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def _modern_style():
    from gradshell.printing import set_print_style

    set_print_style("modern")
    yield
    set_print_style("modern")
