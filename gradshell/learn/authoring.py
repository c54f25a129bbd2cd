"""For lesson writers: replay a lesson's reference solutions and check them.

`verify_lesson(lesson)` runs the lesson as a learner who types every reference solution
would: one `LessonRuntime` (the learner's shell session), the setup, then each step's
solution through the replay engine (`gradshell.replay.run_session`, every output
compared with the one written in the lesson) followed by the step's own checks. The
tests do this for every lesson, in both languages.

    uv run python -m gradshell.learn.authoring verify [FILE...]   # report, exit 1 on failure
    uv run python -m gradshell.learn.authoring regen FILE...      # rewrite the expected output

`regen` writes what gradshell printed under each `>>>` line whose output differs (only
there; every other byte stays). Solutions must be '''literal''' strings for that. The
tests then compare those outputs with real PyTorch where it is installed.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gradshell.learn.checks import Verdict
from gradshell.learn.lesson import Lesson, Step, load_course, load_lesson
from gradshell.learn.runtime import LessonRuntime
from gradshell.replay.model import Example, TranscriptSession
from gradshell.replay.runner import SessionResult, run_session


@dataclass
class StepReport:
    """One step: its solution's replay and its checks afterwards."""

    step: Step
    replay: SessionResult
    verdict: Verdict

    @property
    def ok(self) -> bool:
        """True when the output matched and every check passed."""
        return self.replay.ok and self.verdict.passed


@dataclass
class LessonReport:
    """A whole lesson replayed."""

    lesson: Lesson
    setup_problem: str | None = None
    steps: list[StepReport] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the setup was silent and every step passed."""
        return self.setup_problem is None and all(s.ok for s in self.steps)

    def describe(self, color: bool = False) -> str:
        """What went wrong, as text (empty when nothing did)."""
        from gradshell.replay.report import render, session_report

        parts: list[str] = []
        if self.setup_problem:
            parts.append(f"{self.lesson.path}: setup: {self.setup_problem}\n")
        for s in self.steps:
            if not s.replay.ok:
                parts.append(render(session_report(s.replay), color=color))
            for o in s.verdict.outcomes:
                if o.status.value != "pass" and o.check is not None:
                    parts.append(
                        f"{self.lesson.path}: step {s.step.id!r}: check "
                        f"{o.check.kind}={o.check.subject!r} did not pass after the "
                        f"reference solution ({o.status.value}): {o.message}\n"
                    )
        return "".join(parts)


def _solution_offset(lesson: Lesson, step: Step, text: str, start: int) -> tuple[int, int]:
    """(lines before the solution in the file, where to search next); (0, start) if the
    solution cannot be found verbatim (it is not a literal string)."""
    at = text.find(step.solution_text, start)
    if at < 0:
        return 0, start
    return text.count("\n", 0, at), at + len(step.solution_text)


def _shift(example: Example, lines: int) -> Example:
    return dataclasses.replace(
        example,
        line=example.line + lines,
        want_line=example.want_line + lines,
        want_end=example.want_end + lines,
    )


def verify_lesson(lesson: Lesson, lang: str = "en") -> LessonReport:
    """Replay every reference solution of `lesson` in one lesson session, checking each
    step's output (replay engine) and state (the step's checks)."""
    report = LessonReport(lesson)
    runtime = LessonRuntime(lesson, lang=lang, time_limit=60.0)
    results = runtime.run_quietly(runtime.setup_sources())
    for r in results:
        if r.output or r.error is not None:
            report.setup_problem = f"{r.source!r} printed {r.output!r}"
            break
    try:
        text = Path(lesson.path).read_text(encoding="utf-8")
    except OSError:
        text = ""
    search = 0
    for step in lesson.steps:
        runtime.begin_step(step)
        offset, search = _solution_offset(lesson, step, text, search)
        session = TranscriptSession(
            name=f"{lesson.name}::{step.id}",
            line=(step.solution[0].line + offset) if step.solution else 1,
            examples=[_shift(ex, offset) for ex in step.solution],
            style=runtime.session.style,
            prompt="python",
        )
        replay = run_session(lesson.path, session, factory=lambda style, prompt: runtime)
        report.steps.append(StepReport(step, replay, runtime.check(step)))
    return report


def replay_in_kernel(lesson: Lesson, factory: Any = None) -> SessionResult:
    """Replay the setup and every step's reference solution, one after the other, in one
    sandboxed kernel (the replay runner's default session), comparing every output with
    the lesson's: what `gradshell learn --check` runs."""
    try:
        text = Path(lesson.path).read_text(encoding="utf-8")
    except OSError:
        text = ""
    examples = [
        Example(source=source, want=(), line=1, want_line=2, want_end=2)
        for source in _setup_inputs(lesson)
    ]
    search = 0
    for step in lesson.steps:
        offset, search = _solution_offset(lesson, step, text, search)
        examples += [_shift(ex, offset) for ex in step.solution]
    session = TranscriptSession(
        name=lesson.name, line=1, examples=examples, style=lesson.style, prompt="python"
    )
    return run_session(lesson.path, session, factory=factory or _lesson_kernel)


def _lesson_kernel(style: str, prompt: str) -> Any:
    """A sandboxed kernel as a lesson has it: the visual channel on (magics work), its
    panels kept apart from the compared output; like any replay, it writes no files."""
    from gradshell.replay.diskless import ReplayKernel

    return ReplayKernel(style, prompt, viz=True, time_limit=60.0)


def _setup_inputs(lesson: Lesson) -> list[str]:
    from gradshell.shell.inputsplit import split_script

    if not lesson.setup:
        return []
    return [c.text for c in split_script(lesson.setup) if c.kind == "code"]


def regen(path: str | Path) -> int:
    """Rewrite the expected output of `path`'s solutions where gradshell prints something
    else; returns how many examples changed."""
    from gradshell.replay.update import rewrite

    lesson = load_lesson(path)
    report = verify_lesson(lesson)
    failures = [f for s in report.steps for f in s.replay.failures]
    if not failures:
        return 0
    text = Path(path).read_text(encoding="utf-8")
    Path(path).write_text(rewrite(text, failures), encoding="utf-8")
    return len(failures)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m gradshell.learn.authoring verify|regen [FILE...]`."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in ("verify", "regen"):
        print("usage: python -m gradshell.learn.authoring verify|regen [FILE...]", file=sys.stderr)
        return 2
    command, files = args[0], args[1:]
    lessons = [load_lesson(f) for f in files] if files else load_course()
    failed = 0
    for lesson in lessons:
        if command == "regen":
            changed = regen(lesson.path)
            print(f"{lesson.path}: {changed} output(s) rewritten")
            lesson = load_lesson(lesson.path)
        for lang in ("en", "zh"):
            report = verify_lesson(lesson, lang)
            if not report.ok:
                failed += 1
                sys.stdout.write(report.describe())
                break
        else:
            print(f"{lesson.path}: ok ({len(lesson.steps)} steps)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
