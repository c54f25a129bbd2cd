"""Real PyTorch is the oracle: every output a lesson shows in the modern style is what
Python's REPL prints with real PyTorch 2.x for the same inputs.

Each lesson's setup and reference solutions run, one input at a time, in a plain Python
namespace with the real `torch` (as the interactive interpreter runs them: displays,
warnings once per location, tracebacks); the output is compared with the lesson's
expected output by the replay engine's matcher. gradshell's own magics and the parts a
lesson shows in the legacy (PyTorch 0.3) style have no modern PyTorch to ask and are
left out. Skipped where torch is not installed.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import sys
import traceback
import warnings

import pytest
from lessonkit import course

from gradshell.replay.matcher import compare
from gradshell.shell.inputsplit import split_script

torch = pytest.importorskip("torch")


def _run(source: str, ns: dict, out: io.StringIO) -> None:
    """Run one input as Python's REPL would, writing what it shows to `out`."""

    def show(message, category, filename, lineno, file=None, line=None):
        out.write(f"{filename}:{lineno}: {category.__name__}: {message}\n")

    def display(value):
        if value is not None:
            out.write(repr(value) + "\n")
            builtins._ = value

    saved_hook = sys.displayhook
    saved_show = warnings.showwarning
    sys.displayhook = display
    warnings.showwarning = show
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                code = compile(source, "<stdin>", "single")
                exec(code, ns)
            except Exception as exc:
                out.write("Traceback (most recent call last):\n")
                out.write("".join(traceback.format_exception_only(type(exc), exc)))
    finally:
        sys.displayhook = saved_hook
        warnings.showwarning = saved_show


@pytest.mark.parametrize("lesson", course(), ids=lambda lesson: lesson.id)
def test_modern_outputs_are_real_pytorch(lesson):
    ns: dict = {"__name__": "__main__", "__builtins__": builtins}
    sink = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        for chunk in split_script(lesson.setup):
            if chunk.kind == "code":
                _run(chunk.text, ns, sink)
        assert "Traceback" not in sink.getvalue(), sink.getvalue()
        style = lesson.style
        compared = 0
        for step in lesson.steps:
            for example in step.solution:
                source = example.source.strip()
                if source.startswith("%"):
                    words = source.split()
                    if words[0] == "%style" and len(words) > 1:
                        style = words[1]
                    continue
                got = io.StringIO()
                _run(example.source, ns, got)
                if style != "modern" or example.mode != "compare":
                    continue
                result = compare(example.want, got.getvalue())
                assert result.ok, (
                    f"{lesson.name} step {step.id!r}: {source!r}\n"
                    f"lesson shows:\n{chr(10).join(example.want)}\n"
                    f"PyTorch {torch.__version__} prints:\n{got.getvalue()}"
                )
                compared += 1
    assert compared >= 5
