"""Replay tests: make the helpers next to the tests importable in every import mode."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
