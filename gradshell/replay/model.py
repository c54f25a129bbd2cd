"""The data a transcript parses into: examples, sessions, transcripts, and parse errors.

An *example* is one statement typed at a prompt and the output expected after it. A
*session* is a run of examples that share one fresh shell session. A *transcript* is a
file (or string) holding one or more sessions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Mode = Literal["compare", "skip", "random"]
PromptKind = Literal["python", "ipython"]


class TranscriptError(ValueError):
    """A transcript that cannot be read or parsed; names the file and the line."""

    def __init__(self, message: str, path: str = "<transcript>", line: int | None = None) -> None:
        self.message = message
        self.path = path
        self.line = line
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Example:
    """One statement and its expected output.

    `want` holds the expected lines as written (prompt indentation removed,
    `<BLANKLINE>` turned into an empty line). `line` is the 1-based line of the
    prompt; the expected lines are the file lines `want_line` .. `want_end - 1`.
    """

    source: str
    want: tuple[str, ...]
    line: int
    want_line: int
    want_end: int
    indent: str = ""
    mode: Mode = "compare"
    prompt: PromptKind = "python"
    source_lines: tuple[str, ...] = ()
    first_prompt: str = ""

    def shown_source(self) -> str:
        """The statement as it stood in the transcript, prompts included."""
        lines = self.source_lines or tuple(self.source.split("\n"))
        if self.prompt == "ipython":
            first = self.first_prompt or "In [ ]: "
            cont = " " * max(0, len(first) - 5) + "...: "
        else:
            first, cont = ">>> ", "... "
        return "\n".join(
            ((first if i == 0 else cont) + text).rstrip() for i, text in enumerate(lines)
        )


@dataclass
class TranscriptSession:
    """A run of examples replayed in one fresh shell session.

    `style` and `prompt` are the options written in the transcript (None where it
    names none; the runner then detects them from the expected output).
    """

    name: str
    line: int
    examples: list[Example] = field(default_factory=list)
    style: str | None = None
    prompt: str | None = None


@dataclass
class Transcript:
    """A parsed transcript file: its sessions and the text they came from."""

    path: str
    text: str
    sessions: list[TranscriptSession]
    markdown: bool = False

    @property
    def examples(self) -> list[Example]:
        """Every example of every session, in file order."""
        return [ex for s in self.sessions for ex in s.examples]
