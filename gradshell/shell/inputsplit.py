"""Split a script or a transcript into the inputs a learner would have typed.

Used when stdin is not a terminal (`gradshell < session.py`) and by `%load`. Unlike
Python's REPL, a block continues over blank lines as long as the next line is
indented, so ordinary scripts (blank lines inside functions) work as they are.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

_CONTINUATION = re.compile(r"^(else|elif|except|finally)\b")
_PS1 = re.compile(r"^(>>> ?|In \[\d+\]: ?)")
_PS2 = re.compile(r"^(\.\.\. ?|\s*\.\.\.: ?)")


@dataclass
class Chunk:
    """One piece of a script: 'code' (an input to run), 'comment' or 'blank'."""

    kind: str
    text: str


def _status(source: str) -> str:
    import codeop

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            code = codeop.compile_command(source, "<stdin>", "exec")
        except (SyntaxError, ValueError, OverflowError):
            return "error"
    return "incomplete" if code is None else "complete"


def _is_compound(source: str) -> bool:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    return bool(tree.body) and isinstance(
        tree.body[-1],
        ast.If | ast.For | ast.While | ast.With | ast.Try | ast.FunctionDef | ast.ClassDef,
    )


def iter_chunks(lines: Iterable[str]) -> Iterator[Chunk]:
    """Group lines into chunks, reading lazily (so a pipe can be consumed as it arrives)."""
    it = iter(lines)
    pending: list[str] = []

    def next_line() -> str | None:
        if pending:
            return pending.pop(0)
        return next(it, None)

    line = next_line()
    while line is not None:
        line = line.rstrip("\r\n")
        if not line.strip():
            yield Chunk("blank", "")
            line = next_line()
            continue
        if line.lstrip().startswith("#") and not line[:1].isspace():
            yield Chunk("comment", line)
            line = next_line()
            continue
        buf = [line]
        while True:
            source = "\n".join(buf)
            status = _status(source)
            if status == "incomplete":
                nxt = next_line()
                if nxt is None:
                    break
                buf.append(nxt.rstrip("\r\n"))
                continue
            if status == "error" and not _looks_open(source):
                break
            # Complete: does the block go on (indented lines after blank lines)?
            blanks: list[str] = []
            nxt = next_line()
            while nxt is not None and not nxt.strip():
                blanks.append(nxt.rstrip("\r\n"))
                nxt = next_line()
            if nxt is not None and _continues(source, nxt.rstrip("\r\n")):
                buf.extend(blanks)
                buf.append(nxt.rstrip("\r\n"))
                continue
            pending[:0] = [*blanks, *([nxt] if nxt is not None else [])]
            break
        yield Chunk("code", "\n".join(buf))
        line = next_line()


def _looks_open(source: str) -> bool:
    # A syntax error inside a block that is still being written (e.g. a bad line in a
    # function body) should not split the block in two.
    return source.split("\n")[0].rstrip().endswith(":")


def _continues(source: str, nxt: str) -> bool:
    if nxt[:1] in (" ", "\t"):
        return True
    if _CONTINUATION.match(nxt):
        return True
    return False


def split_script(text: str) -> list[Chunk]:
    """All chunks of a script."""
    return list(iter_chunks(text.splitlines()))


def is_transcript(text: str) -> bool:
    """True if `text` holds `>>>` or `In [n]:` prompts."""
    return any(_PS1.match(line) for line in text.splitlines())


def transcript_inputs(text: str) -> list[str]:
    """The inputs of a transcript (`>>>`/`...` or `In [n]:`/`...:` prompts)."""
    inputs: list[list[str]] = []
    current: list[str] | None = None
    for raw in text.splitlines():
        m = _PS1.match(raw)
        if m:
            current = [raw[m.end() :]]
            inputs.append(current)
            continue
        m2 = _PS2.match(raw)
        if m2 and current is not None:
            current.append(raw[m2.end() :])
            continue
        current = None
    out = []
    for lines in inputs:
        while len(lines) > 1 and not lines[-1].strip():
            lines.pop()
        out.append("\n".join(lines))
    return out


def echo(source: str, ps1: str, ps2: str) -> str:
    """An input as a terminal shows it: the first line after ps1, the rest after ps2."""
    lines = source.split("\n")
    out = [(ps1 + lines[0]).rstrip()]
    out.extend((ps2 + line).rstrip() for line in lines[1:])
    if _is_compound(source) or len(lines) > 1 and lines[-1][:1] in (" ", "\t"):
        out.append(ps2.rstrip())
    return "\n".join(out) + "\n"
