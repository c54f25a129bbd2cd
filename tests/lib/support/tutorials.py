"""Run a tutorial-style script the way a learner does (`gradshell FILE`, through the shell
session) and with real PyTorch in a subprocess, so tests can compare what each printed."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

from support import oracle

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
    """What `python path` prints with real PyTorch installed (its recording without)."""

    def run(_torch) -> str:
        done = subprocess.run(
            [sys.executable, str(path)],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=path.parent,
            check=False,
        )
        return _without_paths(normalise(done.stdout + done.stderr), path)

    return oracle.computed(
        f"python {path.name} {_digest(path.read_text('utf-8'))}", run, oracle.torch()
    )


def _without_paths(text: str, path: Path) -> str:
    """`text` with this machine's folders taken out of warning locations (the program's
    folder, PyTorch's install), so that a recording is the same wherever it is made."""
    import torch as real_torch

    site = str(Path(real_torch.__file__).resolve().parent.parent)
    return (
        text.replace(f"{path.parent.resolve()}/", "")
        .replace(f"{path.parent}/", "")
        .replace(f"{site}/", "<site-packages>/")
    )


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def printed(source: str, torch_mod, extra: dict | None = None) -> str:
    """What `source` prints with `torch` bound to `torch_mod` (an exception it raises is
    printed as `Type: message`, so errors can be compared too). With the oracle's torch
    the printout is recorded whole."""
    if oracle.is_proxy(torch_mod):
        what = f"printed {_digest(source)} {sorted(extra or ())}"
        return oracle.computed(what, lambda real: _printed(source, real, extra), torch_mod)
    return _printed(source, torch_mod, extra)


def _printed(source: str, torch_mod, extra: dict | None) -> str:
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


_WARNING = re.compile(r"^\S.*:\d+: \w*Warning: ")


def without_warnings(text: str) -> str:
    """`text` less Python's warning lines (`file:line: XWarning: ...` and the source line
    after it), whose file names differ between PyTorch and the shell."""
    out: list[str] = []
    skip_source = False
    for line in text.splitlines(keepends=True):
        if _WARNING.match(line):
            skip_source = True
            continue
        if skip_source and line.startswith("  "):
            skip_source = False
            continue
        skip_source = False
        out.append(line)
    return "".join(out)
