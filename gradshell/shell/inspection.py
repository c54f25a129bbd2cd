"""`x?`, `x??` and `?x`: IPython's object help, at the prompt, in piped input and lessons."""

from __future__ import annotations

import re
from typing import Any

_INSPECT = re.compile(r"^\s*(?:\?{1,2}(?P<a>[A-Za-z_][\w.]*)|(?P<b>[A-Za-z_][\w.]*)\?{1,2})\s*$")


def inspect_request(source: str) -> str | None:
    """The name in `x?`, `x??` or `?x` (IPython's object help), else None."""
    m = _INSPECT.match(source)
    if m is None:
        return None
    return m.group("a") or m.group("b")


def inspect_text(session: Any, name: str) -> str:
    """What `name?` shows: the kernel's answer (or this process's), or IPython's
    'not found' line."""
    remote = getattr(session, "inspect", None)
    if remote is not None:
        text = remote(name)
    else:
        from gradshell.shell.completion import describe_name

        text = describe_name(session, name)
    return (text if text is not None else f"Object `{name}` not found.").rstrip("\n") + "\n"


__all__ = ["inspect_request", "inspect_text"]
