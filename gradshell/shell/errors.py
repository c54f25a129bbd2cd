"""The shell's own exceptions: refusals, resource limits, time limits and exit requests."""

from __future__ import annotations


class Refused(Exception):
    """Learner code tried something outside the DSL or its allow-lists.

    Raised by the checker before anything runs, and by the runtime guards. The shell
    prints it as one line: ``gradshell: <message> (line n)``.
    """

    def __init__(self, message: str, lineno: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.lineno = lineno

    def line(self) -> str:
        """The one line the learner sees."""
        where = f" (line {self.lineno})" if self.lineno is not None else ""
        return f"gradshell: {self.message}{where}"


class ResourceLimitError(Refused):
    """A statement asked for more than a resource guard allows (size, integer bits, time)."""


class StatementTimeout(BaseException):
    """A statement ran past the session's per-statement time limit.

    A BaseException, like KeyboardInterrupt, so that `except Exception:` in learner
    code cannot swallow it.
    """


class SessionExit(BaseException):
    """The learner called `exit()` or `quit()`."""

    def __init__(self, code: int = 0) -> None:
        super().__init__(code)
        self.code = code
