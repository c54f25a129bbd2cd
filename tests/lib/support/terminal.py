"""gradshell in a pseudo-terminal (pexpect), for end-to-end tests of the REPL, the
visual panels and the lessons: spawn it, type lines, read until a prompt sits last on
the screen."""

from __future__ import annotations

import os
import re
import sys
import time

import pexpect

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r")


def plain(text: str) -> str:
    """`text` without terminal escape sequences and carriage returns."""
    return ANSI.sub("", text)


class Terminal:
    """`python -m gradshell ARGS` in a pseudo-terminal, with its own data directory."""

    def __init__(self, data_dir, *args: str, width: int = 160, drop_env: tuple = ()) -> None:
        env = dict(
            os.environ,
            PROMPT_TOOLKIT_NO_CPR="1",
            TERM="xterm",
            NO_COLOR="1",
            GRADSHELL_DATA_DIR=str(data_dir),
        )
        # the pseudo-terminal's size decides the width (pytest-xdist's workers export
        # COLUMNS, which would override it)
        for name in (*drop_env, "COLUMNS", "LINES"):
            env.pop(name, None)
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "gradshell", *args],
            env=env,
            encoding="utf-8",
            timeout=60,
            dimensions=(50, width),
        )
        #: Everything the program wrote to the terminal, escapes and all.
        self.raw = ""

    def read_until(self, pattern: re.Pattern, deadline: float = 60, after: str = "") -> str:
        """The screen (escapes removed) once `pattern` matches it and output has paused.

        With `after` (the line just typed), the match must come after its echo where the
        echo shows: a prompt left over from a slow earlier answer does not count."""
        text = ""
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            try:
                chunk = self.child.read_nonblocking(size=65536, timeout=0.4)
                text += chunk
                self.raw += chunk
                continue
            except pexpect.TIMEOUT:
                pass
            except pexpect.EOF:
                break
            shown = plain(text)
            start = shown.rfind(after) + len(after) if after and after in shown else 0
            if pattern.search(shown[start:]):
                return shown
        raise AssertionError(f"{pattern.pattern!r} never came; screen: {plain(text)!r}")

    def type(self, line: str, pattern: re.Pattern) -> str:
        """Type `line` and Enter; the screen until `pattern` comes back after it."""
        self.child.sendline(line)
        return self.read_until(pattern, after=line.strip() if len(line.strip()) >= 8 else "")

    def eof(self) -> str:
        """Ctrl-D, wait for the program to end; what it printed on the way out."""
        self.child.sendeof()
        self.child.expect(pexpect.EOF)
        text = plain(self.child.before or "")
        self.child.close()
        return text

    def kill(self) -> None:
        """Stop the program if it still runs."""
        if self.child.isalive():
            self.child.terminate(force=True)
