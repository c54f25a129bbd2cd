"""What visualisation needs from the shell that runs it, handed over by the shell.

Visualisation sits below the shell: it never imports it. The shell's plugin for it
(`gradshell.shell.viz_plugin`) installs a `Host` with the shell's own pieces — the
error a magic raises when used wrongly, its file service's error, and how it evaluates
an expression typed after a magic (parse, check, guard, eval, as learner code). Until
then (visualisation used without a shell) plain stand-ins apply.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class UsageError(Exception):
    """A magic was used wrongly (without a shell to show it as its own usage error)."""


class FileError(Exception):
    """A file could not be written (without a shell's file service)."""


def _no_evaluate(session: Any, text: str, overrides: dict[str, Any] | None) -> Any:
    raise RuntimeError("expressions after a magic are evaluated by the shell")


@dataclass(frozen=True)
class Host:
    """The shell's pieces that visualisation uses."""

    #: Raised with the message when a magic is used wrongly.
    usage_error: type[Exception] = UsageError
    #: What the session's file service raises for a path or I/O problem.
    file_error: type[Exception] = FileError
    #: The file service's message when Graphviz's `dot` is not installed.
    graphviz_missing: str = ""
    #: `evaluate(session, text, overrides)`: an expression typed after a magic, checked
    #: and guarded as learner code; raises viz's ExpressionError with the reason.
    evaluate: Callable[[Any, str, dict[str, Any] | None], Any] = _no_evaluate


current = Host()


def install(host: Host) -> None:
    """Make `host` the shell visualisation works for (the shell calls this once)."""
    global current
    current = host


def usage(text: str) -> None:
    """Stop a magic with a usage message."""
    raise current.usage_error(text) from None
