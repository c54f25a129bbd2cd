"""IPython's cell rules: `%magic` lines anywhere in a cell run in order with the code
around them.

A notebook cell (or a `-c` program) such as

    %xmode explain
    y2 = x * 2
    y2.backward()

runs the magic, then the code. A line is a magic when it starts with `%` at the left
margin outside any open bracket or string of the code before it (IPython reads it the
same way); everything else is code. Each piece of code keeps its line numbers: the lines
of the other pieces are left blank in it, so a traceback names the line the learner sees.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MAGIC = re.compile(r"^%(?!%)[A-Za-z_]")
_CELL_MAGIC = re.compile(r"^%%[A-Za-z_]\w*")


@dataclass(frozen=True)
class CellPart:
    """One piece of a cell: a magic line, or code (other pieces' lines left blank)."""

    kind: str  # "magic" or "code"
    text: str


def _open(code: str) -> bool:
    """Whether `code` ends inside an unclosed bracket or string (more lines belong to it)."""
    try:
        compile(code + "\n", "<cell>", "exec")
    except SyntaxError as exc:
        message = str(exc.msg)
        return message.startswith(("'(' was never closed", "'[' was never closed")) or (
            "was never closed" in message or "unterminated triple-quoted" in message
        )
    return False


def cell_magic(source: str) -> str | None:
    """The name of a cell magic (`%%time`) that starts `source`, else None."""
    m = _CELL_MAGIC.match(source.lstrip("\n"))
    return m.group(0) if m else None


def split_cell(source: str) -> list[CellPart]:
    """The cell's pieces in order; one code piece (the source itself) when it has no
    magic line, one magic piece when it is a single magic line."""
    lines = source.split("\n")
    marks: list[str] = []  # per line: "magic" or "code"
    code_so_far: list[str] = []
    for line in lines:
        if _MAGIC.match(line) and not (code_so_far and _open("\n".join(code_so_far))):
            marks.append("magic")
            code_so_far.append("")
        else:
            marks.append("code")
            code_so_far.append(line)
    if "magic" not in marks:
        return [CellPart("code", source)]
    parts: list[CellPart] = []
    start = 0
    for index, mark in enumerate(marks + ["end"]):
        if index < len(marks) and mark == marks[start]:
            continue
        if marks[start] == "magic":
            parts.extend(CellPart("magic", lines[i]) for i in range(start, index))
        else:
            piece = [line if start <= i < index else "" for i, line in enumerate(lines[:index])]
            if any(line.strip() for line in piece):
                parts.append(CellPart("code", "\n".join(piece)))
        start = index
    return parts


__all__ = ["CellPart", "cell_magic", "split_cell"]
