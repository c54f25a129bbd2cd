"""Feeding a `Tutor`: from a terminal (prompt_toolkit, like the shell's REPL) or from a
pipe (each input echoed after its prompt, so the output reads like a transcript).

Ctrl-C cancels the line being typed (or interrupts running code) and never ends the
lesson; Ctrl-D saves and leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TextIO

from gradshell.learn.tutor import Mode, Tutor
from gradshell.shell.terminal_text import visible

Reader = Callable[[Tutor], str]
"""Reads the learner's next input for `tutor` (raises EOFError at the end)."""


def run_tutor(tutor: Tutor, read: Reader) -> int:
    """Ask, read, handle until the learner leaves; returns the exit status (0)."""
    while not tutor.finished:
        try:
            text = read(tutor)
        except KeyboardInterrupt:
            tutor.out.write(tutor.t("interrupted") + "\n")
            tutor.out.flush()
            continue
        except EOFError:
            tutor.out.write("\n")
            tutor.eof()
            break
        try:
            tutor.handle(text)
        except KeyboardInterrupt:
            tutor.out.write(tutor.t("interrupted") + "\n")
    return 0


def _menu_session() -> Any:
    from gradshell.shell.session import Session

    return Session(viz=False)


class PromptReader:
    """Reads inputs with prompt_toolkit: highlighting, completion of the lesson session's
    names, multi-line blocks, the shell's persistent history."""

    def __init__(self, *, input: Any = None, output: Any = None) -> None:
        self._input = input
        self._output = output
        self._for: Any = None
        self._prompt: Any = None
        self._fallback: Any = None

    def __call__(self, tutor: Tutor) -> str:
        from gradshell.shell.repl import build_prompt_session, clean_input

        session = tutor.session
        if session is None:
            if self._fallback is None:
                self._fallback = _menu_session()
            session = self._fallback
        if session is not self._for:
            self._for = session
            self._prompt = build_prompt_session(session, input=self._input, output=self._output)
        text = self._prompt.prompt(tutor.prompt())
        return clean_input(text)


class PipeReader:
    """Reads inputs from lines (a pipe or a file), a block up to its closing empty line,
    and echoes each after its prompt as a terminal would show it."""

    def __init__(self, lines: TextIO | Iterator[str], out: TextIO, *, echo: bool = True) -> None:
        self._lines = iter(lines)
        self._out = out
        self._echo = echo
        self._checker: Any = None

    def _line(self) -> str:
        line = next(self._lines, None)
        if line is None:
            raise EOFError
        return line.rstrip("\r\n")

    def __call__(self, tutor: Tutor) -> str:
        prompt = tutor.prompt()
        first = self._line()
        self._show(prompt + first)
        if tutor.mode in (Mode.MENU, Mode.PREDICT) or not first.strip():
            return first
        session = tutor.session
        if session is None:
            return first
        lines = [first]
        while not session.is_complete("\n".join(lines)):
            try:
                more = self._line()
            except EOFError:
                break
            self._show("... " + more)
            lines.append(more)
            if not more.strip():
                break
        while len(lines) > 1 and not lines[-1].strip():
            lines.pop()
        return "\n".join(lines)

    def _show(self, text: str) -> None:
        if self._echo:
            self._out.write(visible(text.rstrip()) + "\n")
            self._out.flush()


__all__ = ["PipeReader", "PromptReader", "Reader", "run_tutor"]
