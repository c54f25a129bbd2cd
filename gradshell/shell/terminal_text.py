"""Text from the kernel made safe to write to a terminal: nothing in it drives the terminal.

Learner code may print anything, and a terminal obeys some of what it is sent: an escape
sequence can set the clipboard (OSC 52), the window title, hide text (SGR 8) or move the
cursor over earlier output; a backspace or a carriage return can draw over what was
printed; a bidi override can show characters in another order than they were printed.
`visible` shows such characters as text instead, in the form Python's `repr` gives them:
ESC is shown as `\\x1b` (so `print(chr(27) + "[8m")` shows `\\x1b[8m`), C1 controls such
as `\\x9b`, BEL as `\\x07`, backspace as `\\x08`, DEL as `\\x7f`, a bidi override or
isolate as `\\u202e`. Newlines and tabs are kept.

A carriage return that ends a line (`\\r\\n`) is a newline. Any other one starts a new
line instead of going back over the current one, so a progress counter printed with `\\r`
shows each update on its own line rather than hiding what it drew before.
"""

from __future__ import annotations

import re

#: Every C0 control but tab and newline, DEL, the C1 controls, and the bidi embeddings,
#: overrides and isolates (U+202A-U+202E, U+2066-U+2069: the characters of "Trojan
#: Source"). A carriage return is dealt with before (see `visible`).
_DRIVES_THE_TERMINAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

#: Carriage returns that end a line, or that stand alone.
_CARRIAGE_RETURN = re.compile("\r+\n?")


def _shown(match: re.Match[str]) -> str:
    # unicode_escape writes what Python's repr writes for these: \x1b, \x9b, \u202e
    return match.group().encode("unicode_escape").decode("ascii")


def line_ends(text: str) -> str:
    """`text` with each carriage return, alone or ending a line, turned into a newline."""
    return _CARRIAGE_RETURN.sub("\n", text) if "\r" in text else text


def visible(text: str) -> str:
    """`text` with every character that would drive a terminal shown as its escape."""
    return _DRIVES_THE_TERMINAL.sub(_shown, line_ends(text))


__all__ = ["line_ends", "visible"]
