"""Tracebacks and warnings as the learner should see them: their own code only.

Each cell is compiled under an internal file name (``<gs-cell-7>``) that maps to the
name the learner knows (``<stdin>``, ``<string>``, a script's path) and to the cell's
lines. A traceback keeps only frames of those files, shown with the learner's name and
line, then the error's type and message exactly as raised (so PyTorch's wording stays
intact). Warnings raised by library code are attributed to the learner's innermost line,
as PyTorch's own warnings are.
"""

from __future__ import annotations

import re
import sys
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FrameType, TracebackType
from typing import Any

from gradshell.shell.errors import Refused
from gradshell.shell.suggestions import with_suggestion


@dataclass
class SourceMap:
    """Internal file name -> (the learner's name for it, its lines)."""

    files: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    counter: int = 0

    def add(self, display: str, source: str) -> str:
        """Register a cell's source; returns the internal file name to compile it under."""
        self.counter += 1
        internal = f"<gs-cell-{self.counter}>"
        self.files[internal] = (display, source.splitlines())
        return internal

    def __contains__(self, filename: str) -> bool:
        return filename in self.files

    def line(self, filename: str, lineno: int) -> str:
        """The stripped text of a line ('' if unknown)."""
        return self.raw_line(filename, lineno).strip()

    def raw_line(self, filename: str, lineno: int) -> str:
        """The text of a line as written, indentation included ('' if unknown)."""
        entry = self.files.get(filename)
        if entry is None or not 0 < lineno <= len(entry[1]):
            return ""
        return entry[1][lineno - 1]

    def is_script(self, filename: str) -> bool:
        """Whether a cell came from a file (Python marks positions only in files; a
        notebook cell, `Cell In[n]`, is not one)."""
        shown = self.display(filename)
        return not shown.startswith(("<", NOTEBOOK_CELL))

    def display(self, filename: str) -> str:
        """The learner's name for an internal file name."""
        entry = self.files.get(filename)
        return entry[0] if entry else filename


def _position(tb: TracebackType) -> tuple[int | None, int | None, int | None, int | None]:
    """(line, end line, column, end column) of the instruction `tb` stopped at."""
    if tb.tb_lasti < 0:
        return tb.tb_lineno, None, None, None
    positions = list(tb.tb_frame.f_code.co_positions())
    index = tb.tb_lasti // 2
    if index >= len(positions):
        return tb.tb_lineno, None, None, None
    return positions[index]


def _learner_frames(tb: TracebackType | None, sources: SourceMap) -> list[traceback.FrameSummary]:
    out = []
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename in sources:
            lineno = tb.tb_lineno
            _, end_lineno, colno, end_colno = _position(tb)
            if not sources.is_script(filename):
                colno = end_colno = None  # Python has no source to mark for <stdin>
            out.append(
                traceback.FrameSummary(
                    sources.display(filename),
                    lineno,
                    tb.tb_frame.f_code.co_name,
                    lookup_line=False,
                    # as linecache gives it (with its newline): the caret offsets count it
                    line=sources.raw_line(filename, lineno) + "\n",
                    end_lineno=end_lineno,
                    colno=colno,
                    end_colno=end_colno,
                )
            )
        tb = tb.tb_next
    return out


def innermost_learner_line(exc: BaseException, sources: SourceMap) -> int | None:
    """The line of learner code where `exc` passed last (None if none)."""
    line = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename in sources:
            line = lineno
    return line


def _format_one(exc: BaseException, sources: SourceMap) -> list[str]:
    if isinstance(exc, Refused):
        if exc.lineno is None:
            exc.lineno = innermost_learner_line(exc, sources)
        return [exc.line() + "\n"]
    lines: list[str] = []
    frames = _learner_frames(exc.__traceback__, sources)
    if frames:
        lines.append("Traceback (most recent call last):\n")
        lines.extend(
            _cell_named(line) for line in traceback.StackSummary.from_list(frames).format()
        )
    lines.extend(exception_only(exc))
    hint = getattr(exc, "hint", None)
    if isinstance(hint, str) and hint:  # gradshell's own advice after PyTorch's message
        lines.append(hint + "\n")
    return lines


#: How a notebook names its cells in tracebacks (`Cell In[3]`), as IPython does.
NOTEBOOK_CELL = "Cell In["
_CELL_FRAME = re.compile(r'^  File "(Cell In\[\d+\])", line (\d+), in (.*)$', re.M)


def _cell_named(frame_text: str) -> str:
    """A frame in a notebook cell as IPython names it: `Cell In[3], line 2` (and the
    function's name when it is not the cell's own code)."""

    def name(m: re.Match[str]) -> str:
        where = "" if m.group(3) == "<module>" else f", in {m.group(3)}"
        return f"  {m.group(1)}, line {m.group(2)}{where}"

    return _CELL_FRAME.sub(name, frame_text)


def exception_only(exc: BaseException) -> list[str]:
    """The error's last line(s) as Python prints them, with Python 3.12's suggestion for a
    misspelt name or attribute (`Did you mean: 'print'?`) on every Python."""
    lines = traceback.format_exception_only(type(exc), exc)
    if lines and isinstance(exc, NameError | AttributeError):
        lines[0] = with_suggestion(lines[0], exc)
    return lines


def _from_learner(exc: BaseException, sources: SourceMap) -> bool:
    return any(f.f_code.co_filename in sources for f, _ in traceback.walk_tb(exc.__traceback__))


def format_exception(exc: BaseException, sources: SourceMap) -> str:
    """The learner's traceback for `exc`, chained exceptions from learner code included."""
    chain: list[tuple[BaseException, str | None]] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    note: str | None = None
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        chain.append((current, note))
        if current.__cause__ is not None:
            nxt, note = current.__cause__, _CAUSE
        elif current.__context__ is not None and not current.__suppress_context__:
            nxt, note = current.__context__, _CONTEXT
        else:
            nxt = None
        if nxt is not None and not _from_learner(nxt, sources):
            nxt = None
        current = nxt
    out: list[str] = []
    for item, link in reversed(chain):
        out.extend(_format_one(item, sources))
        if link is not None:
            out.append(link)
    return "".join(out)


_CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
_CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"


def format_syntax_error(exc: SyntaxError) -> str:
    """A SyntaxError as Python's REPL prints it (no traceback, the line and a caret)."""
    return "".join(traceback.format_exception_only(type(exc), exc))


# --- warnings ----------------------------------------------------------------------

_QUIET_BY_DEFAULT = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)
#: What Python's default filters hide even when learner code (`__main__`) is the cause: an
#: unclosed file's ResourceWarning, for one (a learner's own filter does not bring these
#: back here).
_QUIET_EVERYWHERE = (PendingDeprecationWarning, ImportWarning, ResourceWarning)


class WarningPrinter:
    """A `warnings.showwarning` for learner code (use inside `catch_warnings`)."""

    def __init__(
        self, sources: SourceMap, write: Callable[[str], Any], registry: set[tuple]
    ) -> None:
        self.sources = sources
        self.write = write
        self.registry = registry

    def _learner_frame(self) -> FrameType | None:
        frame: FrameType | None = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_filename in self.sources:
                return frame
            frame = frame.f_back
        return None

    def __call__(
        self,
        message: Any,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: Any = None,
        line: str | None = None,
    ) -> None:
        """Print one warning as Python would, attributed to the learner's line."""
        if issubclass(category, _QUIET_EVERYWHERE):
            return
        frame = self._learner_frame()
        if frame is not None:
            internal = frame.f_code.co_filename
            display = self.sources.display(internal)
            lineno = frame.f_lineno
            text = self.sources.line(internal, lineno)
        else:
            if issubclass(category, _QUIET_BY_DEFAULT):
                return
            display, text = filename, ""
        key = (str(message), category, display, lineno)
        if key in self.registry:
            return  # Python's "default" action: once per location
        self.registry.add(key)
        shown = f"{display}:{lineno}: {category.__name__}: {message}\n"
        if text and not display.startswith("<"):
            shown += f"  {text}\n"
        self.write(shown)


class install_warning_printer:  # noqa: N801 - used like a function
    """A context manager routing every warning to `printer`."""

    __slots__ = ("printer", "saved")

    def __init__(self, printer: WarningPrinter) -> None:
        self.printer = printer

    def __enter__(self) -> None:
        self.saved = warnings.catch_warnings()
        self.saved.__enter__()
        warnings.simplefilter("always")
        warnings.showwarning = self.printer

    def __exit__(self, *exc: Any) -> None:
        self.saved.__exit__(*exc)
