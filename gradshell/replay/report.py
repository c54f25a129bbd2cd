"""Failure reports: where a transcript went wrong, and an expected/got diff (rich).

For each mismatch: the file and line, the statement, and a line diff of the expected
output (`-`, red, numbered with its transcript line) against what the session printed
(`+`, green); characters that differ inside a changed line are highlighted. Colour is
used only when asked for, and never when the `NO_COLOR` environment variable is set.
What the session printed, and the transcript's own text, are shown with every character
that would drive a terminal written as its escape (`\x1b`): a report is read in one.
"""

from __future__ import annotations

import difflib
import io
import os
from collections.abc import Iterable

from rich.console import Console
from rich.text import Text

from gradshell.replay.matcher import Comparison
from gradshell.replay.runner import ExampleResult, SessionResult
from gradshell.shell.terminal_text import visible

CONTEXT = 3
"""Unchanged lines shown around each change."""

MAX_DIFF_LINES = 400
"""Lines of each side diffed; longer outputs are cut after the first difference."""


def color_allowed(requested: bool = True) -> bool:
    """Colour only when requested and `NO_COLOR` is unset or empty (no-color.org)."""
    return requested and not os.environ.get("NO_COLOR")


def make_console(file=None, *, color: bool) -> Console:
    """A rich console that writes plain text when `color` is false."""
    color = color_allowed(color)
    return Console(
        file=file,
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
        highlight=False,
        emoji=False,
        markup=False,
        soft_wrap=True,
        width=100,
    )


def session_report(result: SessionResult) -> list[Text]:
    """The report of one session's failures (empty when it passed)."""
    parts: list[Text] = []
    where = f'session "{result.session.name}", {result.style} style'
    if result.error is not None:
        line = Text()
        line.append("ERROR ", style="bold red")
        line.append(f"{result.path}:{result.session.line}", style="bold")
        line.append(f"  ({where})\n")
        line.append(f"  {visible(result.error)}\n")
        parts.append(line)
    for failure in result.failures:
        parts.append(example_report(result.path, failure, where))
    if parts and result.unwritten:
        parts.append(unwritten_note(result.unwritten))
    return parts


def unwritten_note(names: list[str]) -> Text:
    """Why a file the transcript wrote is not on disk: replay writes no files, so an
    output that depends on one being there afterwards differs."""
    shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
    return Text(
        f"  note: replay writes no files; {shown} existed only during the replay\n",
        style="dim",
    )


def example_report(path: str, failure: ExampleResult, where: str = "") -> Text:
    """The report of one failed example: location, statement, diff."""
    example, comparison = failure.example, failure.comparison
    assert comparison is not None
    first = comparison.first_diff_line(example.want_line)
    text = Text()
    text.append("FAILED ", style="bold red")
    text.append(f"{path}:{example.line}", style="bold")
    if where:
        text.append(f"  ({where})")
    text.append("\n")
    for line in visible(example.shown_source()).split("\n"):
        text.append("    " + line + "\n", style="cyan")
    text.append(f"  first difference at line {first}\n")
    if not comparison.want:
        text.append("  expected no output\n", style="dim")
    if not comparison.got:
        text.append("  got no output\n", style="dim")
    text.append("  --- expected\n", style="red")
    text.append("  +++ got\n", style="green")
    text.append_text(diff_text(comparison, example.want_line))
    return text


def _numbered(number: int | None, width: int) -> str:
    return (str(number) if number is not None else "").rjust(width)


def diff_text(comparison: Comparison, want_line: int) -> Text:
    """A line diff of expected against got, expected lines numbered by transcript line."""
    want = [visible(line) for line in comparison.want]
    got = [visible(line) for line in comparison.got]
    numbers = [want_line + k for k in comparison.want_index]
    width = len(str(max(numbers, default=want_line)))
    out = Text()
    cut_want = cut_got = 0
    if max(len(want), len(got)) > MAX_DIFF_LINES:  # keep difflib's work bounded
        end = (comparison.first_diff or 0) + MAX_DIFF_LINES // 2
        cut_want, cut_got = max(0, len(want) - end), max(0, len(got) - end)
        want, got = want[:end], got[:end]
    matcher = difflib.SequenceMatcher(None, want, got, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            _context(out, want, numbers, i1, i2, width, first=i1 == 0, last=i2 == len(want))
            continue
        pairs = list(zip(range(i1, i2), range(j1, j2), strict=False)) if tag == "replace" else []
        marks = {i: _char_marks(want[i], got[j]) for i, j in pairs}
        got_marks = {j: _char_marks(got[j], want[i]) for i, j in pairs}
        for i in range(i1, i2):
            out.append(f"  {_numbered(numbers[i], width)} ", style="dim")
            out.append_text(_marked("-" + want[i], marks.get(i, []), "red"))
            out.append("\n")
        for j in range(j1, j2):
            out.append(f"  {_numbered(None, width)} ", style="dim")
            out.append_text(_marked("+" + got[j], got_marks.get(j, []), "green"))
            out.append("\n")
    if cut_want or cut_got:
        out.append(
            f"  … {cut_want} more expected and {cut_got} more actual lines not shown\n",
            style="dim",
        )
    return out


def _context(
    out: Text, want: list[str], numbers: list[int], i1: int, i2: int, width: int, *, first, last
) -> None:
    shown: Iterable[int]
    if i2 - i1 <= 2 * CONTEXT:
        shown = range(i1, i2)
    else:
        head = [] if first else list(range(i1, i1 + CONTEXT))
        tail = [] if last else list(range(i2 - CONTEXT, i2))
        shown = head + [-1] + tail
    for i in shown:
        if i < 0:
            out.append(f"  {' ' * width}  ⋯\n", style="dim")
            continue
        out.append(f"  {_numbered(numbers[i], width)}  {want[i]}\n")


def _char_marks(line: str, other: str) -> list[tuple[int, int]]:
    """Spans of `line` (offset by the one-character diff marker) that `other` lacks."""
    matcher = difflib.SequenceMatcher(None, line, other, autojunk=False)
    return [(i1 + 1, i2 + 1) for tag, i1, i2, _, _ in matcher.get_opcodes() if tag != "equal"]


def _marked(line: str, spans: list[tuple[int, int]], style: str) -> Text:
    text = Text(line, style=style)
    for start, end in spans:
        if end > start:
            text.stylize("bold reverse", start, end)
    return text


def render(parts: Iterable[Text], *, color: bool = False) -> str:
    """Render report parts to a string (ANSI colours only when `color` is allowed)."""
    buffer = io.StringIO()
    console = make_console(buffer, color=color)
    for part in parts:
        console.print(part, end="")
    return buffer.getvalue()


def summary(passed: int, failed: int) -> str:
    """The closing line: `N passed, N failed`."""
    return f"{passed} passed, {failed} failed"
