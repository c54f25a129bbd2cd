"""Kernel text made safe for a terminal: every character that would drive the terminal
is shown as its Python escape; newlines and tabs stay, carriage returns start lines."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradshell.shell.terminal_text import line_ends, visible

ESC = "\x1b"

#: What may never reach the terminal from kernel text: C0 but tab and newline, DEL, C1,
#: the bidi embeddings, overrides and isolates.
DRIVES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

ATTACKS = [
    ("osc52-clipboard", ESC + "]52;c;aGVsbG8=\x07", "\\x1b]52;c;aGVsbG8=\\x07"),
    ("osc0-title", ESC + "]0;pwned\x07", "\\x1b]0;pwned\\x07"),
    ("sgr8-hidden", ESC + "[8msecret" + ESC + "[0m", "\\x1b[8msecret\\x1b[0m"),
    ("cursor-up-erase", ESC + "[1A" + ESC + "[2K" + ESC + "[2J", "\\x1b[1A\\x1b[2K\\x1b[2J"),
    ("c1-csi", "\x9b2J", "\\x9b2J"),
    ("dcs", ESC + "Pq" + ESC + "\\", "\\x1bPq\\x1b\\"),
    ("backspace", "rm -rf\x08\x08\x08\x08\x08\x08ls", "rm -rf\\x08\\x08\\x08\\x08\\x08\\x08ls"),
    ("bel-del-nul", "\x07\x7f\x00", "\\x07\\x7f\\x00"),
    ("bidi-override", "abc\u202edcba\u202c", "abc\\u202edcba\\u202c"),
    ("bidi-isolate", "\u2066x\u2069", "\\u2066x\\u2069"),
    ("carriage-return", "loss 9.9\rloss 0.1", "loss 9.9\nloss 0.1"),
]


@pytest.mark.parametrize(("name", "text", "shown"), ATTACKS, ids=[a[0] for a in ATTACKS])
def test_controls_are_shown_as_their_escapes(name, text, shown):
    assert visible(text) == shown
    assert not DRIVES.search(visible(text)) and "\r" not in visible(text)


def test_newlines_tabs_and_ordinary_text_stay():
    text = "tensor([1., 2.])\n\tx → ∂y/∂x ✓ 中文 émoji 👩‍💻\n"
    assert visible(text) == text


def test_line_ends():
    assert line_ends("a\r\nb\r\n") == "a\nb\n"
    assert line_ends("0%\r50%\r100%\n") == "0%\n50%\n100%\n"
    assert visible("\r") == "\n"


def test_the_escape_looks_like_pythons_repr():
    for ch in ("\x1b", "\x9b", "\x07", "\x08", "\x7f", "\u202e"):
        assert visible(ch) == repr(ch)[1:-1]


@given(st.text())
def test_nothing_that_drives_a_terminal_is_left(text):
    shown = visible(text)
    assert not DRIVES.search(shown) and "\r" not in shown
    assert visible(shown) == shown  # shown text is safe as it is
