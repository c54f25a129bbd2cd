"""Whether the visual channel may use colour (shared by the front end and the kernel).

It lives with the views that use colour; the shell's front end asks the same question
(`gradshell.shell.colour` re-exports it).
"""

from __future__ import annotations

import os
import sys


def color_wanted() -> bool:
    """True when views may use colour: a terminal on stdout and NO_COLOR unset.

    In the kernel process stdout is a pipe; the front end says in GRADSHELL_COLOR
    whether its terminal shows colour."""
    if os.environ.get("NO_COLOR"):
        return False
    told = os.environ.get("GRADSHELL_COLOR")
    if told in ("0", "1"):
        return told == "1"
    stream = sys.__stdout__
    try:
        return bool(stream is not None and stream.isatty())
    except (ValueError, OSError):
        return False


__all__ = ["color_wanted"]
