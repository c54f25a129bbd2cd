"""Write a session as a replayable transcript (doctest `>>>`/`...` form, with outputs).

The file opens with a `# replay:` directive giving the style and prompt the session
started with (later `%style`/`%prompt` inputs are part of the transcript), and an empty
line inside an output is written `<BLANKLINE>`, as doctest does, so that `gradshell
replay` reads every output back whole.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradshell.shell.inputsplit import echo

if TYPE_CHECKING:
    from gradshell.shell.session import Session


def output_block(output: str) -> str:
    """An output as a transcript holds it: empty lines become `<BLANKLINE>`."""
    if not output:
        return ""
    lines = output.split("\n")
    if lines[-1] == "":
        lines.pop()
    return "".join((line if line.strip() else "<BLANKLINE>") + "\n" for line in lines)


def session_transcript(session: Session) -> str:
    """The recorded inputs of `session` and what each printed, as a transcript."""
    parts: list[str] = [
        "# A gradshell session, saved with %save; replay it with `gradshell replay FILE`.\n",
        f"# replay: style={session.initial_style} prompt={session.initial_prompt}\n",
    ]
    for entry in session.history:
        if not entry.record or not entry.source.strip():
            continue
        parts.append(echo(entry.source.rstrip("\n"), ">>> ", "... "))
        parts.append(output_block(entry.output))
    return "".join(parts)
