"""Run a tutorial-style script the way a learner does (`gradshell FILE`, through the shell
session) and with real PyTorch in a subprocess, so tests can compare what each printed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def normalise(text: str) -> str:
    """Object addresses replaced, as transcripts do."""
    return _ADDRESS.sub("0x…", text)


def run_in_gradshell(path: Path) -> str:
    """What `gradshell path` prints on the torch channel."""
    from gradshell.shell.session import Session

    result = Session(viz=False).run_script(path.read_text(encoding="utf-8"), path.name)
    return normalise(result.output)


def run_in_pytorch(path: Path) -> str:
    """What `python path` prints with real PyTorch installed."""
    done = subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=path.parent,
        check=False,
    )
    return normalise(done.stdout + done.stderr)


def printed(source: str, torch_mod, extra: dict | None = None) -> str:
    """What `source` prints with `torch` bound to `torch_mod` (an exception it raises is
    printed as `Type: message`, so errors can be compared too)."""
    import contextlib
    import io

    import numpy as np

    out = io.StringIO()
    namespace = {"torch": torch_mod, "np": np, **(extra or {})}
    with contextlib.redirect_stdout(out):
        try:
            exec(source, namespace)  # noqa: S102 - the tests' own programs
        except Exception as e:  # noqa: BLE001 - the error is part of what is compared
            print(f"{type(e).__name__}: {e}")
    return normalise(out.getvalue())
