"""Write a session as a replayable transcript (doctest `>>>`/`...` form, with outputs)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradshell.shell.inputsplit import echo

if TYPE_CHECKING:
    from gradshell.shell.session import Session


def session_transcript(session: Session) -> str:
    """The recorded inputs of `session` and what each printed, as a transcript."""
    parts: list[str] = []
    for entry in session.history:
        if not entry.record or not entry.source.strip():
            continue
        parts.append(echo(entry.source.rstrip("\n"), ">>> ", "... "))
        parts.append(entry.output)
    return "".join(parts)
