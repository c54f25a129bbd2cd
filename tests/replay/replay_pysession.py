"""A shell session that runs cells with CPython itself: the test double and the oracle.

`PythonSession` shows values as Python's REPL does (`repr` of every top-level
expression, nothing for None), prints warnings as `<stdin>:N: Category: message`, and
an exception as `Traceback (most recent call last):`, one frame line and
`Type: message`. With `prompt="ipython"` values are shown as `Out[n]: ...`.

It is the fake session of the replay tests (plain Python, no torch needed) and, with
`torch` bound to real PyTorch, the oracle the modern seed transcripts are generated and
checked with::

    uv run python tests/replay/replay_pysession.py --update tests/transcripts/seed_002_modern.gsh

It runs code without any sandbox: use it only on this project's own transcripts.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import io
import sys
import traceback
import warnings
from dataclasses import dataclass


@dataclass
class Result:
    """The part of gradshell's CellResult the replay runner reads."""

    output: str
    visual: str = ""
    error: BaseException | None = None


class PythonSession:
    """Runs cells with `exec`, displaying values like Python's (or IPython's) REPL."""

    def __init__(self, style: str = "modern", prompt: str = "python") -> None:
        self.style = style
        self.prompt = prompt
        self.count = 0
        self.namespace: dict = {"__name__": "__main__", "__builtins__": builtins}

    def run_cell(self, source: str) -> Result:
        """Run one cell and return what it printed."""
        self.count += 1
        out = io.StringIO()
        error: BaseException | None = None

        def display(value: object) -> None:
            if value is None:
                return
            text = repr(value)
            if self.prompt == "ipython":
                out.write(f"Out[{self.count}]: " + ("\n" if "\n" in text else "") + text + "\n")
            else:
                out.write(text + "\n")
            self.namespace["_"] = value

        def show_warning(message, category, filename, lineno, file=None, line=None):
            out.write(warnings.formatwarning(message, category, filename, lineno, line=""))

        saved_hook = sys.displayhook
        try:
            tree = ast.parse(source, "<stdin>")
            code = compile(ast.Interactive(body=tree.body), "<stdin>", "single")
        except SyntaxError as exc:
            return Result("".join(traceback.format_exception_only(exc)), error=exc)
        with (
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(out),
            warnings.catch_warnings(),
        ):
            warnings.simplefilter("default")
            warnings.showwarning = show_warning
            sys.displayhook = display
            try:
                exec(code, self.namespace)
            except Exception as exc:
                error = exc
                out.write("Traceback (most recent call last):\n")
                out.write('  File "<stdin>", line 1, in <module>\n')
                out.write("".join(traceback.format_exception_only(exc)))
            finally:
                sys.displayhook = saved_hook
        return Result(out.getvalue(), error=error)


def pytorch_session(style: str, prompt: str) -> PythonSession:
    """A PythonSession in which `import torch` is real PyTorch (modern style only)."""
    if style != "modern":
        raise ValueError("real PyTorch 2.x can only replay modern-style transcripts")
    import torch  # noqa: F401 - fail early when PyTorch is not installed

    return PythonSession(style, prompt)


if __name__ == "__main__":
    from gradshell.replay.cli import main

    raise SystemExit(main(sys.argv[1:], factory=pytorch_session))
