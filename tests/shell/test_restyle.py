"""The kernel's coloured text re-coloured by the front end: gradshell's own panels look
as they did, and nothing else an escape sequence could do gets through."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st
from rich.panel import Panel
from rich.rule import Rule
from rich.style import Style
from rich.text import Text

from gradshell.shell.restyle import kept_style, restyle
from gradshell.viz.common import render

ESC = "\x1b"
SGR = re.compile(r"\x1b\[[0-9;]*m")
DRIVES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def only_colour_codes(text: str) -> bool:
    """No escape but the front end's colour codes, no other control character."""
    return not DRIVES.search(SGR.sub("", text)) and "\r" not in text


def test_gradshells_own_panels_are_unchanged():
    line = Text("x.grad  ", style="bold cyan")
    line.append("[1., 1.]", style="dim")
    line.append(" + ")
    line.append("[2., 2.]", style="green")
    line.append("  ← backward #2", style="dim italic")
    for view in (Panel(line, title=Text("x", style="bold cyan")), Rule("Lesson", style="bold")):
        own = render(view, 60, True)
        assert restyle(own, color=True) == own
        assert restyle(own, color=False) == SGR.sub("", own)


def test_hidden_text_blinking_reverse_and_links_are_dropped():
    forged = (
        ESC + "[8mhidden" + ESC + "[0m "
        + ESC + "[5;7mblink" + ESC + "[0m "
        + ESC + "]8;;javascript:alert(1)" + ESC + "\\click" + ESC + "]8;;" + ESC + "\\"
    )  # fmt: skip
    assert restyle(forged, color=True) == "hidden blink click"


def test_text_the_same_colour_as_its_background_is_made_readable():
    for forged in (ESC + "[30;40mx" + ESC + "[0m", ESC + "[31;41mx" + ESC + "[0m"):
        shown = restyle(forged, color=True)
        assert shown in (ESC + "[97;40mx" + ESC + "[0m", ESC + "[97;41mx" + ESC + "[0m")
    # black or white on the terminal's own background: the terminal's own colour
    assert restyle(ESC + "[30mx" + ESC + "[0m", color=True) == "x"
    assert restyle(ESC + "[97mx" + ESC + "[0m", color=True) == "x"
    # a background with no colour of its own gets a readable one
    assert restyle(ESC + "[107mx" + ESC + "[0m", color=True) == ESC + "[30;107mx" + ESC + "[0m"
    assert kept_style(Style.parse("conceal blink reverse")) is None


def test_other_sequences_and_controls_drive_nothing():
    forged = (
        "a" + ESC + "[2J" + ESC + "[1A" + ESC + "[2Kb\x9b2J\u202e" + ESC + "]52;c;aGk=\x07"
        + ESC + "]0;title" + ESC + "\\" + ESC + "[31mred" + ESC + "[0m"
    )  # fmt: skip
    shown = restyle(forged, color=True)
    assert only_colour_codes(shown)
    assert "\\x9b2J\\u202e" in shown and ESC + "[31mred" + ESC + "[0m" in shown
    assert only_colour_codes(restyle(forged, color=False)) and ESC not in restyle(
        forged, color=False
    )


def test_carriage_returns_start_lines():
    assert restyle(ESC + "[1mloss 9.9\rloss 0.1" + ESC + "[0m", color=False) == "loss 9.9\nloss 0.1"


@given(st.text(alphabet=st.sampled_from(list("ab[];8m0123\x1b\x07\x9b\r\n\u202e"))))
def test_only_the_front_ends_colour_codes_come_out(text):
    assert only_colour_codes(restyle(text, color=True))
    assert ESC not in restyle(text, color=False)
