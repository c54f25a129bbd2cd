"""Whether the visual channel may use colour (shared by the front end and the kernel).

The answer is visualisation's (`gradshell.viz.terminal`), which sits below the shell."""

from __future__ import annotations

from gradshell.viz.terminal import color_wanted

__all__ = ["color_wanted"]
