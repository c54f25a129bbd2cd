"""Jupyter notebooks as transcripts: each code cell is an example, its saved outputs the
expected text.

A notebook is one session (one kernel runs all its cells), replayed with Jupyter's
display rules (`prompt="jupyter"`: only a cell's last expression is shown, in IPython's
form, without `Out[n]:`). The expected text of a cell is what it printed (stdout and
stderr streams), its result (`text/plain`), and an error's exception line (IPython draws
its traceback differently; the stack lines are not compared), in order; display
data (the visual panels, pictures) is not compared, as the terminal's visual channel is
not. The file is read as JSON (nbformat 4); no notebook library is needed.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gradshell.replay.detect import LEGACY_OUTPUT
from gradshell.replay.model import Example, Transcript, TranscriptError, TranscriptSession
from gradshell.replay.parser import NOTEBOOK_SUFFIXES

TRACEBACK = "Traceback (most recent call last):"


def _text(value: Any) -> str:
    """Notebook text fields are a string or a list of strings."""
    if isinstance(value, list):
        return "".join(str(part) for part in value)
    return "" if value is None else str(value)


def cell_output_text(outputs: list[Any]) -> str:
    """The text a cell's saved outputs show, as the terminal would have printed it."""
    parts: list[str] = []
    for output in outputs:
        if not isinstance(output, dict):
            continue
        kind = output.get("output_type")
        if kind == "stream":
            parts.append(_text(output.get("text")))
        elif kind == "execute_result":
            data = output.get("data") or {}
            plain = _text(data.get("text/plain"))
            parts.append(plain if plain.endswith("\n") else plain + "\n")
        elif kind == "error":
            # IPython draws its own traceback; what both agree on is the exception line
            # (the matcher skips the stack lines of a traceback).
            head = f"{output.get('ename')}: {output.get('evalue')}".rstrip(": ")
            parts.append(f"{TRACEBACK}\n...\n{head}\n")
    return "".join(parts)


_STYLE_MAGIC = re.compile(r"^%style\b", re.M)


def _starting_style(cells: list[Any]) -> str:
    """The style the notebook's kernel started in: read from the outputs of the cells
    before its first `%style` (which replay runs in its own cell, as the kernel did)."""
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        if _STYLE_MAGIC.search(_text(cell.get("source"))):
            break
        shown = cell_output_text(cell.get("outputs") or [])
        if LEGACY_OUTPUT.search(shown):
            return "legacy"
    return "modern"


def parse_notebook(text: str, path: str = "<notebook>") -> Transcript:
    """A notebook's code cells as one transcript session; raises TranscriptError."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise TranscriptError(f"not a notebook (invalid JSON: {exc})", path) from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise TranscriptError("not a notebook (no list of cells)", path)
    if int(data.get("nbformat", 4) or 4) < 4:
        raise TranscriptError("notebook format 3 or older: save it again with Jupyter", path)
    session = TranscriptSession(
        name="notebook", line=1, prompt="jupyter", style=_starting_style(data["cells"])
    )
    number = 0
    for index, cell in enumerate(data["cells"], start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = _text(cell.get("source")).rstrip("\n")
        if not source.strip():
            continue
        number += 1
        tags = (cell.get("metadata") or {}).get("tags") or []
        mode = (
            "skip" if "replay-skip" in tags else "random" if "replay-random" in tags else "compare"
        )
        want = tuple(cell_output_text(cell.get("outputs") or []).splitlines())
        session.examples.append(
            Example(
                source=source,
                want=want,
                line=index,
                want_line=index,
                want_end=index,
                mode=mode,
                prompt="python",
                first_prompt=f"In [{number}]: ",
            )
        )
    return Transcript(path=path, text=text, sessions=[session] if session.examples else [])


__all__ = ["NOTEBOOK_SUFFIXES", "cell_output_text", "parse_notebook"]
