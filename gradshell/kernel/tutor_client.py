"""The front end of a lesson: the Tutor runs in the kernel, next to the learner's code.

`KernelTutor` has what the terminal drivers (`gradshell.learn.terminal`) use of a
`Tutor` — `start`, `handle`, `eof`, `prompt`, `mode`, `finished`, `t`, `session`, `out`
— and relays each to the lesson running in a sandboxed kernel. The learner's progress
file stays with the front end (the kernel asks for it to be loaded and saved).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from gradshell.kernel.client import KernelSession
from gradshell.learn.i18n import tr
from gradshell.learn.progress import ProgressStore
from gradshell.learn.tutor import Mode
from gradshell.shell.terminal_text import visible


class KernelTutor:
    """A Tutor in a sandboxed kernel, driven from the front end."""

    def __init__(
        self,
        *,
        lang: str,
        out: TextIO,
        store: ProgressStore,
        time_limit: float | None = None,
        color: bool = False,
        extra: Sequence[Path] = (),
    ) -> None:
        self.lang = lang
        self.out = out
        self.kernel = KernelSession(
            viz=True,
            time_limit=time_limit,
            stream=out,
            mode="learn",
            learn={
                "lang": lang,
                "time_limit": time_limit,
                "color": color,
                "extra": [str(p) for p in extra],  # a teacher's lessons beside the course
            },
            progress_store=store,
        )
        self.kernel.tutor_state = {"mode": Mode.MENU.value, "prompt": "> ", "finished": False}

    def start(self, name: str | None = None) -> bool:
        """Open lesson `name` (or the menu); False if there is no such lesson."""
        reply = self.kernel.call("tutor_start", name=name)
        return bool(reply.get("value", False))

    def handle(self, text: str) -> None:
        """Take one input from the learner."""
        reply = self.kernel.call("tutor_handle", text=text)
        if reply.get("interrupted"):
            raise KeyboardInterrupt

    def eof(self) -> None:
        """Ctrl-D: leave (the lesson saves its progress)."""
        self.kernel.call("tutor_eof")
        self.close()

    def close(self) -> None:
        """Stop the kernel."""
        self.kernel.close()

    @property
    def finished(self) -> bool:
        """True once the learner has left."""
        return bool(self.kernel.tutor_state.get("finished"))

    @property
    def mode(self) -> Mode:
        """What the lesson is waiting for."""
        try:
            return Mode(self.kernel.tutor_state.get("mode", Mode.MENU.value))
        except ValueError:
            return Mode.MENU

    def prompt(self) -> str:
        """The prompt for the next input (the kernel's words, shown as text)."""
        return visible(str(self.kernel.tutor_state.get("prompt", "> ")))

    def t(self, key: str, **fields: Any) -> str:
        """The engine's message `key` in the learner's language."""
        return tr(self.lang, key, **fields)

    @property
    def session(self) -> KernelSession | None:
        """The lesson's shell session (for completion and multi-line input), if in one."""
        return self.kernel if self.kernel.tutor_state.get("in_session") else None


__all__ = ["KernelTutor"]
