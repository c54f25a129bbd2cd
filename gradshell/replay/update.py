"""`--update`: write what the session printed into the transcript, in place.

Only the expected output of failed examples is rewritten; every other byte of the
file stays as it was (line endings included). Output lines are written with the
prompt's indentation, an empty line inside the output as `<BLANKLINE>`, and a
traceback as its header, one `  ...` stack line and its exception lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from gradshell.replay.matcher import TRACEBACK, reduce_traceback
from gradshell.replay.normalise import output_lines
from gradshell.replay.runner import ExampleResult, SessionResult

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def expected_lines(got: str) -> list[str]:
    """The expected-output lines to write for a session's output."""
    lines = [line.rstrip() for line in output_lines(got)]
    while lines and lines[-1] == "":
        lines.pop()
    if TRACEBACK in lines:
        pairs = reduce_traceback(list(enumerate(lines)))
        reduced = [line for _, line in pairs]
        at = reduced.index(TRACEBACK)
        lines = reduced[: at + 1] + ["  ..."] + reduced[at + 1 :]
    return [line if line else "<BLANKLINE>" for line in lines]


def rewrite(text: str, failures: Iterable[ExampleResult]) -> str:
    """The transcript text with the expected output of `failures` replaced."""
    newline = "\r\n" if "\r\n" in text else "\n"
    ends_with_newline = text.endswith(("\n", "\r"))
    lines = _LINE_BREAK.split(text)
    if ends_with_newline:
        lines.pop()
    # Replace from the bottom up so earlier line numbers stay valid.
    for failure in sorted(failures, key=lambda f: f.example.want_line, reverse=True):
        example = failure.example
        new = [example.indent + line for line in expected_lines(failure.got)]
        lines[example.want_line - 1 : example.want_end - 1] = new
    out = newline.join(lines)
    return out + newline if ends_with_newline else out


def update_file(path: str | Path, text: str, results: Iterable[SessionResult]) -> int:
    """Rewrite the failed examples of `results` in the file; returns how many changed."""
    failures = [f for r in results for f in r.failures]
    if not failures:
        return 0
    new = rewrite(text, failures)
    Path(path).write_bytes(new.encode("utf-8"))
    return len(failures)
