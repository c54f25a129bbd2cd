"""Nothing learner code prints drives the terminal: the clipboard (OSC 52), the window
title, hidden text, cursor moves and erasing, C1 controls, backspaces, carriage returns
and bidi overrides reach it as visible text, through the real sandboxed kernel, in
`gradshell -c`, a FILE, piped stdin and an interactive terminal. gradshell's own colours
still reach a colour terminal."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from support.terminal_attacks import ATTACKS, drives

HOSTILE_NAME = "chr(27) + '[8mhid'"  # a module name that would hide text in a panel
PANEL = (
    "import torch\nm = torch.nn.Module()\n"
    f"m.add_module({HOSTILE_NAME}, torch.nn.Linear(1, 1))\n"
    "out = sum(p.sum() for p in m.parameters())\nout.backward()\nout.backward()\n"
)
PRINTS = "\n".join(a.source for a in ATTACKS)
TO_STDERR = "import sys\nprint('<ERR>' + chr(27) + ']52;c;eA==' + chr(7), file=sys.stderr)\n"
FAILS = "raise ValueError('<RAISED>' + chr(27) + '[2J' + chr(27) + '[8m')\n"


def gs(*args: str, stdin: str | None = None, cwd=None) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "gradshell", *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=180,
        env=env,
        cwd=cwd,
    )


def assert_shown_not_obeyed(written: str) -> None:
    assert drives(written) == [], written
    for attack in ATTACKS:
        assert attack.expected in written, attack.name
        assert attack.forbidden not in written


@pytest.mark.parametrize("how", ["-c", "FILE"])
def test_a_program_drives_nothing(tmp_path, how):
    program = PRINTS + "\n" + TO_STDERR + FAILS
    if how == "-c":
        r = gs("-c", program, cwd=tmp_path)
    else:
        (tmp_path / "evil.py").write_text(program)
        r = gs("evil.py", cwd=tmp_path)
    assert r.returncode == 1
    assert_shown_not_obeyed(r.stdout)
    assert drives(r.stderr) == [], r.stderr
    assert "<ERR>\\x1b]52;c;eA==\\x07" in r.stdout + r.stderr
    assert "ValueError: <RAISED>\\x1b[2J\\x1b[8m" in r.stderr


def test_an_input_prompt_drives_nothing(tmp_path):
    r = gs("-c", "input('<ASK>' + chr(27) + ']0;title' + chr(7))", stdin="", cwd=tmp_path)
    assert r.stdout == "<ASK>\\x1b]0;title\\x07"
    assert drives(r.stdout + r.stderr) == []


def test_piped_input_drives_nothing_and_nor_do_its_panels(tmp_path):
    r = gs(stdin=PRINTS + "\n" + PANEL, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert_shown_not_obeyed(r.stdout)
    # the panels (on stderr) name the module as it is, with its escape shown
    assert drives(r.stderr) == [], r.stderr
    assert "m['\\x1b[8mhid'].weight.grad" in r.stderr


pexpect = pytest.importorskip("pexpect")
from support import terminal  # noqa: E402

PROMPT = re.compile(r">>>\s*$")


def test_an_interactive_terminal_is_driven_by_nothing_learner_code_prints(tmp_path):
    term = terminal.Terminal(tmp_path / "data", drop_env=("NO_COLOR",))
    try:
        term.read_until(PROMPT)
        for attack in ATTACKS:
            term.type(attack.source, PROMPT)
        for line in PANEL.strip().split("\n"):
            term.type(line, PROMPT)
    finally:
        term.eof()
    raw = term.raw
    for attack in ATTACKS:
        # the terminal's own line discipline turns each newline into \r\n
        assert attack.expected.replace("\n", "\r\n") in raw, attack.name
        assert attack.forbidden not in raw, attack.name
    for raw_only in ("\x9b", "\u202e", "\x1b]52", "\x1b]0;", "\x1b[8m"):
        assert raw_only not in raw, repr(raw_only)
    # gradshell's own colours still come: the panel's title, bold cyan, with the
    # module's name escaped inside it
    assert "\x1b[1;36m m['\\x1b[8mhid'].weight.grad \x1b[0m" in raw
