"""Learner code that tries to drive the terminal through what it prints, and how to tell
whether it did: the shell, the kernel and lesson tests share these.

Each attack prints, between two markers, characters a terminal would obey (built with
`chr` so that the source itself is plain text). `shown` is what the learner must see
instead: the same characters as Python's escapes, a carriage return as a new line.
`raw` is what must never reach the terminal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ESC = "\x1b"

#: Characters that drive a terminal: C0 controls but tab and newline (a carriage return
#: included), DEL, C1 controls, bidi embeddings, overrides and isolates.
DRIVES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@dataclass(frozen=True)
class Attack:
    """One print that would drive a terminal."""

    name: str
    raw: str  # what the learner prints between the markers
    shown: str  # what the terminal must show instead

    @property
    def marker(self) -> str:
        return self.name.upper().replace("-", "")

    @property
    def source(self) -> str:
        """Learner code that prints the attack between two markers."""
        pieces = [p for p in re.split(f"({DRIVES.pattern})", self.raw) if p]
        built = " + ".join(f"chr({ord(p)})" if DRIVES.fullmatch(p) else repr(p) for p in pieces)
        return f"print('<{self.marker}>' + {built} + '</{self.marker}>')"

    @property
    def expected(self) -> str:
        """The line(s) the learner sees."""
        return f"<{self.marker}>{self.shown}</{self.marker}>"

    @property
    def forbidden(self) -> str:
        """The raw characters next to the first marker: never in what was written."""
        return f"<{self.marker}>{self.raw}"


ATTACKS = [
    Attack("osc52-clipboard", ESC + "]52;c;aGVsbG8=\x07", "\\x1b]52;c;aGVsbG8=\\x07"),
    Attack("osc0-title", ESC + "]0;pwned" + ESC + "\\", "\\x1b]0;pwned\\x1b\\"),
    Attack("sgr8-hidden", ESC + "[8mhidden" + ESC + "[0m", "\\x1b[8mhidden\\x1b[0m"),
    Attack("cursor-up", ESC + "[1A" + ESC + "[2K", "\\x1b[1A\\x1b[2K"),
    Attack("erase-screen", ESC + "[2J" + ESC + "[H", "\\x1b[2J\\x1b[H"),
    Attack("c1-csi", "\x9b2J\x9b1A", "\\x9b2J\\x9b1A"),
    Attack("backspace", "ok\x08\x08no", "ok\\x08\\x08no"),
    Attack("carriage-return", "loss 9.9\rloss 0.1", "loss 9.9\nloss 0.1"),
    Attack("bidi-override", "\u202e1.0 = ssol\u202c", "\\u202e1.0 = ssol\\u202c"),
]


def drives(text: str) -> list[str]:
    """The characters in `text` that would drive a terminal (empty: none)."""
    return DRIVES.findall(text)
