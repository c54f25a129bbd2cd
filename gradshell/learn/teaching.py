"""The teacher's commands of `gradshell learn`: `--export`, `--new` and `--check`.

`--export` and `--new` run in the front end (they run no learner code); `--check`
replays each lesson's reference solutions in a sandboxed kernel, as `gradshell replay`
does, and reports every output that differs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from gradshell.learn.lesson import Lesson, LessonError, find_lesson, lessons_dir, load_lesson
from gradshell.learn.progress import ProgressStore, atomic_write


def refuse_target(target: str, *, force: bool, interactive: bool) -> str | None:
    """Why a command may not write `target` (None: it may): a hidden name anywhere in it,
    or an existing file the learner did not agree to replace (`--force`, or yes at the
    terminal's y/N question, as IPython asks before `%save` replaces a file)."""
    from gradshell.shell.files import HIDDEN, answered_yes, typed_hidden

    if typed_hidden(target) is not None:
        return f"{target}: {HIDDEN}"
    if force or not os.path.lexists(target):
        return None
    if interactive:
        try:
            answer = input(f"File `{target}` exists. Overwrite (y/[N])? ")
        except (EOFError, KeyboardInterrupt):
            answer = ""
        if answered_yes(answer):
            return None
    return f"{target} exists, so it was left as it is (add --force to overwrite it)"


def export(
    store: ProgressStore,
    course: list[Lesson],
    target: str,
    *,
    lang: str = "en",
    learner: str | None = None,
    force: bool = False,
    interactive: bool = False,
) -> int:
    """Write the learner's progress report to `target` (`-`: stdout); the exit status.
    An existing file is replaced only with `force` or the learner's yes."""
    from gradshell.learn.export import export_progress, export_text

    if target != "-":
        refused = refuse_target(target, force=force, interactive=interactive)
        if refused is not None:
            print(f"gradshell learn: {refused}", file=sys.stderr)
            return 1
    progress = store.load()
    for notice in store.take_notices():
        print(f"gradshell learn: progress file: {notice.kind} {notice.fields}", file=sys.stderr)
    text = export_text(export_progress(course, progress, lang=lang, learner=learner))
    if target == "-":
        sys.stdout.write(text)
        return 0
    try:
        atomic_write(Path(target), text)
    except OSError as exc:
        print(f"gradshell learn: cannot write {target}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"Progress written to {target}.")
    return 0


def new_lesson(transcript: str, out: str | None) -> int:
    """Draft a lesson from `transcript` into `out` (default: the next lesson file in the
    current folder); the exit status."""
    from gradshell.learn.drafting import DraftError, draft_lesson, next_lesson_path
    from gradshell.learn.lesson import load_course
    from gradshell.shell.files import HIDDEN, typed_hidden

    source = Path(transcript)
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"gradshell learn: cannot read {transcript}: {exc}", file=sys.stderr)
        return 2
    try:
        draft = draft_lesson(text, path=str(source))
    except DraftError as exc:
        print(f"gradshell learn: {exc}", file=sys.stderr)
        return 1
    if out is None:
        try:
            numbers = [lesson.number for lesson in load_course()]
        except LessonError:
            numbers = []
        target = next_lesson_path(Path.cwd(), source.stem, numbers)
    else:
        target = Path(out)
    if typed_hidden(target) is not None:
        print(f"gradshell learn: {target}: {HIDDEN}", file=sys.stderr)
        return 1
    if os.path.lexists(target):  # a draft never replaces a file, not even a symlink
        print(f"gradshell learn: {target} exists; give another --out", file=sys.stderr)
        return 1
    try:
        atomic_write(target, draft)
        load_lesson(target)  # the draft must be a lesson the course can read
    except OSError as exc:
        print(f"gradshell learn: cannot write {target}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except LessonError as exc:
        print(f"gradshell learn: the draft does not load: {exc}", file=sys.stderr)
        return 1
    print(f"Lesson drafted in {target}: fill in the TODO texts in both languages, then")
    print(f"    gradshell learn --check {target}")
    return 0


def _pick(names: list[str], course: list[Lesson]) -> list[Lesson]:
    if not names:
        return list(course)
    picked = []
    for name in names:
        if name.endswith(".toml"):
            picked.append(load_lesson(name))
            continue
        found = find_lesson(course, name)
        if found is None:
            raise LessonError(lessons_dir(), f"no lesson {name!r}")
        picked.append(found)
    return picked


def check_lessons(names: list[str], course: list[Lesson]) -> int:
    """Replay the reference solutions of the named lessons (all by default) in a kernel;
    print each difference; the exit status (1 if any lesson failed)."""
    from gradshell.learn.authoring import replay_in_kernel
    from gradshell.replay.report import render, session_report

    try:
        lessons = _pick(names, course)
    except LessonError as exc:
        print(f"gradshell learn: {exc}", file=sys.stderr)
        return 2
    failed = 0
    for lesson in lessons:
        result = replay_in_kernel(lesson)
        count = len(result.examples)
        if result.ok:
            steps = len(lesson.steps)
            plural = "" if steps == 1 else "s"
            print(f"{lesson.path}: ok ({steps} step{plural}, {count} statements replayed)")
            continue
        failed += 1
        sys.stdout.write(render(session_report(result), color=False))
        if result.error:
            print(f"{lesson.path}: {result.error}")
        print(f"{lesson.path}: FAILED")
    return 1 if failed else 0


__all__ = ["check_lessons", "export", "new_lesson"]
