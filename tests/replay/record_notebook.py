"""Run a notebook's code cells in IPython with real PyTorch and save the outputs: the
expected text of a notebook transcript (`gradshell replay NOTEBOOK` compares with it).

    uv run python tests/replay/record_notebook.py tests/transcripts/autograd_tutorial.ipynb

Needs PyTorch installed in the environment (the notebook's kernel is `python3`, IPython's).
"""

from __future__ import annotations

import sys

import nbformat
from nbclient import NotebookClient


def record(path: str) -> None:
    """Execute `path` with IPython's kernel and write the outputs back into it."""
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, kernel_name="python3", timeout=300, allow_errors=True).execute()
    nbformat.write(notebook, path)


if __name__ == "__main__":
    for name in sys.argv[1:]:
        record(name)
        print(f"recorded {name}")
