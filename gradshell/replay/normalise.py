"""Make expected and actual output comparable: the differences that never matter go.

Applied to both sides, line by line:

* Windows (`\\r\\n`) and old Mac (`\\r`) line endings become `\\n`;
* trailing whitespace is dropped from every line, and trailing empty lines at the end;
* object addresses (`at 0x7f3a…`, `at 0x00000178B6D15C18`) become `at 0x…`;
* IPython output numbers (`Out[57]:`) become `Out[_]:`, and empty lines right after a
  bare `Out[n]:` line (where IPython starts a multi-line value) are dropped.

Each normalised line keeps the index of the line it came from, so a report can name
the transcript line of a difference.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+\b")
_OUT_PROMPT = re.compile(r"^Out\[\d*\]:")
ADDRESS = "at 0x…"
OUT_PROMPT = "Out[_]:"


def output_lines(text: str) -> list[str]:
    """Split captured output into lines on any line ending (no empty last line)."""
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def normalise_line(line: str) -> str:
    """One line with trailing whitespace, addresses and `Out[n]` numbers normalised."""
    line = line.rstrip()
    if "0x" in line:
        line = _ADDRESS.sub(ADDRESS, line)
    if line.startswith("Out["):
        line = _OUT_PROMPT.sub(OUT_PROMPT, line, count=1)
    return line


def normalise(lines: Iterable[str]) -> list[tuple[int, str]]:
    """Normalise lines; returns `(index of the source line, normalised text)` pairs."""
    out: list[tuple[int, str]] = []
    after_bare_out = False
    for index, raw in enumerate(lines):
        for part in _LINE_BREAK.split(raw) if ("\r" in raw or "\n" in raw) else (raw,):
            line = normalise_line(part)
            if after_bare_out and line == "":
                continue
            after_bare_out = line == OUT_PROMPT
            out.append((index, line))
    while out and out[-1][1] == "":
        out.pop()
    return out


def normalise_text(text: str) -> list[str]:
    """Normalised lines of a block of captured output."""
    return [line for _, line in normalise(output_lines(text))]
