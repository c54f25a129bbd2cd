"""Replay transcript sessions: each in a fresh shell session, each example compared.

The shell session is made by a factory (style, prompt) → object with
`run_cell(source) -> result` where `result.output` is the text a learner sees on the
torch channel. By default that is gradshell's own `Session`; tests pass others.
Examples after a mismatch keep running, as doctest does, so one report shows every
difference of a session.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from gradshell.replay.detect import resolve_prompt, resolve_style
from gradshell.replay.matcher import Comparison, compare
from gradshell.replay.model import Example, Transcript, TranscriptSession

Status = Literal["passed", "failed", "skipped", "random"]

DEFAULT_TIME_LIMIT = 30.0
"""Seconds one statement may run during replay before the session stops it."""


class ShellSession(Protocol):
    """What the runner needs from a shell session."""

    def run_cell(self, source: str) -> Any:
        """Run one statement; the result's `output` is the torch-channel text (and, for
        a notebook's cells, `shown` adds the cell's result and error after it)."""
        ...


SessionFactory = Callable[[str, str], ShellSession]
"""(style, prompt) → a fresh shell session."""


def gradshell_session(style: str, prompt: str) -> ShellSession:
    """A fresh sandboxed kernel for replay (a time limit per cell; the visual channel only
    for notebooks) that writes no files: what the transcript writes is kept for this
    replay only."""
    from gradshell.replay.diskless import ReplayKernel

    # A notebook's magics drew panels in the notebook: its replay keeps them on (their
    # display data is not compared), so %explain answers as it did there.
    viz = prompt == "jupyter"
    return ReplayKernel(style, prompt, viz=viz, time_limit=DEFAULT_TIME_LIMIT)


@dataclass
class ExampleResult:
    """The outcome of one example."""

    example: Example
    status: Status
    got: str = ""
    comparison: Comparison | None = None


@dataclass
class SessionResult:
    """The outcome of one transcript session."""

    path: str
    session: TranscriptSession
    style: str
    prompt: str
    examples: list[ExampleResult] = field(default_factory=list)
    error: str | None = None
    unwritten: list[str] = field(default_factory=list)
    """Files the transcript wrote that replay kept off the disk (`%save`, `torch.save`)."""

    @property
    def passed(self) -> int:
        """Examples that matched, or ran without comparison (`# replay: random`)."""
        return sum(r.status in ("passed", "random") for r in self.examples)

    @property
    def failed(self) -> int:
        """Examples whose output did not match (a session error counts as one)."""
        return sum(r.status == "failed" for r in self.examples) + (self.error is not None)

    @property
    def skipped(self) -> int:
        """Examples marked `# replay: skip`."""
        return sum(r.status == "skipped" for r in self.examples)

    @property
    def ok(self) -> bool:
        """True if nothing failed."""
        return self.failed == 0

    @property
    def failures(self) -> list[ExampleResult]:
        """The failed examples, in order."""
        return [r for r in self.examples if r.status == "failed"]


def run_session(
    path: str,
    session: TranscriptSession,
    *,
    factory: SessionFactory | None = None,
    style: str | None = None,
) -> SessionResult:
    """Replay one session in a fresh shell session; `style` overrides the detected one."""
    use_style = resolve_style(session, style)
    use_prompt = resolve_prompt(session)
    result = SessionResult(path, session, use_style, use_prompt)
    make = factory or gradshell_session
    try:
        shell = make(use_style, use_prompt)
    except Exception as exc:  # a broken shell must become a report, not a crash
        result.error = f"could not start a {use_style} session: {type(exc).__name__}: {exc}"
        return result
    try:
        _replay_examples(shell, session, result)
    finally:
        unwritten = getattr(shell, "unwritten", None)
        if callable(unwritten):
            result.unwritten = list(unwritten())
        close = getattr(shell, "close", None)
        if close is not None:
            close()
    return result


def _replay_examples(
    shell: ShellSession, session: TranscriptSession, result: SessionResult
) -> None:
    """Run each example of `session` in `shell`, recording outcomes in `result`."""
    for example in session.examples:
        if example.mode == "skip":
            result.examples.append(ExampleResult(example, "skipped"))
            continue
        try:
            cell = shell.run_cell(example.source)
            # a notebook's cell keeps its result and error apart from its printed text
            got = getattr(cell, "shown", cell.output)
        except BaseException as exc:  # run_cell promises not to raise; report if it does
            if isinstance(exc, KeyboardInterrupt):
                raise
            result.error = (
                f"the shell session raised {type(exc).__name__}: {exc} "
                f"at line {example.line}; the rest of the session was not run"
            )
            return
        if example.mode == "random":
            result.examples.append(ExampleResult(example, "random", got))
            continue
        comparison = compare(example.want, got)
        status: Status = "passed" if comparison.ok else "failed"
        result.examples.append(ExampleResult(example, status, got, comparison))


def run_transcript(
    transcript: Transcript,
    *,
    factory: SessionFactory | None = None,
    style: str | None = None,
) -> list[SessionResult]:
    """Replay every session of a transcript, each in its own fresh shell session."""
    return [
        run_session(transcript.path, s, factory=factory, style=style) for s in transcript.sessions
    ]
