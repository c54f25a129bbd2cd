"""`gradshell learn`: the guided lessons.

    gradshell learn                 the menu, with progress (Enter resumes)
    gradshell learn NAME            open a lesson (number, id or file name) where you left it
    gradshell learn --list          list the lessons with progress and exit
    gradshell learn --reset NAME    forget a lesson's progress (`all`: every lesson)
    gradshell learn --lang en|zh    the language (default: from the locale)
    gradshell learn --export FILE   write your progress as a report for a teacher
                                    (`-`: standard output; `--learner NAME` names you in it;
                                    an existing FILE is replaced only with `--force` or
                                    your yes at the terminal)
    gradshell learn --new TRANSCRIPT
                                    draft a lesson file from a `>>>` transcript
                                    (`--out FILE`; default: the next NN-slug.toml here)
    gradshell learn --check [LESSON|FILE ...]
                                    replay every reference solution in a sandboxed kernel

Exit status: 0, 1 when a check or a write failed, 2 for a usage error or an unknown lesson.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gradshell.learn.i18n import LANGS, default_lang, tr
from gradshell.learn.lesson import (
    LessonError,
    extra_lesson_paths,
    find_lesson,
    lessons_dir,
    load_course,
)

if TYPE_CHECKING:
    from gradshell.learn.progress import ProgressStore

DEFAULT_TIME_LIMIT = 60.0
"""Seconds one statement may run when input comes from a pipe (none at a terminal)."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="gradshell learn",
        description="Guided lessons on PyTorch autograd, in English and Chinese.",
    )
    p.add_argument(
        "name",
        nargs="?",
        help="the lesson to open: its number or name, or a lesson file (NN-name.toml)",
    )
    p.add_argument(
        "--lessons",
        action="append",
        default=[],
        metavar="DIR",
        help="add a teacher's lessons (a folder of NN-name.toml files) beside the built-in "
        "course; also $GRADSHELL_LESSON_PATH",
    )
    p.add_argument("--list", action="store_true", help="list the lessons with your progress")
    p.add_argument("--lang", choices=LANGS, default=None, help="en or zh (default: the locale's)")
    p.add_argument("--reset", metavar="NAME", help="forget NAME's progress ('all': every lesson)")
    p.add_argument(
        "--export", metavar="FILE", help="write your progress as a JSON report ('-': stdout)"
    )
    p.add_argument("--learner", metavar="NAME", help="the name to put in an --export report")
    p.add_argument("--force", action="store_true", help="let --export replace an existing file")
    p.add_argument("--new", metavar="TRANSCRIPT", help="draft a lesson from a >>> transcript")
    p.add_argument("--out", metavar="FILE", help="where --new writes the lesson")
    p.add_argument(
        "--check",
        nargs="*",
        metavar="LESSON",
        default=None,
        help="replay the reference solutions of these lessons (default: all) in a kernel",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `gradshell learn`; returns the exit status."""
    try:
        args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    lang = args.lang or default_lang()
    if args.new is not None:
        from gradshell.learn.teaching import new_lesson

        return new_lesson(args.new, args.out)
    if args.check is not None and any(a.endswith(".toml") for a in args.check):
        from gradshell.learn.teaching import check_lessons

        return check_lessons(args.check, [])
    given = list(args.lessons)
    if args.name is not None and args.name.endswith(".toml") and os.path.isfile(args.name):
        given.append(args.name)  # a lesson file: open it, with the course around it
        args.name = Path(args.name).name
    extra = extra_lesson_paths(given)
    try:
        course = load_course(extra=extra)
    except LessonError as exc:
        print(tr(lang, "lesson_broken", error=exc), file=sys.stderr)
        return 2
    if not course:
        print(tr(lang, "no_lessons", where=lessons_dir()), file=sys.stderr)
        return 2

    from gradshell.learn.progress import ProgressStore
    from gradshell.learn.tutor import Tutor

    store = ProgressStore()
    interactive = sys.stdin.isatty() and sys.stdout.isatty()

    if args.reset is not None:
        store.load()
        lesson_id = None
        if args.reset.lower() != "all":
            lesson = find_lesson(course, args.reset)
            if lesson is None:
                print(tr(lang, "unknown_lesson", name=args.reset), file=sys.stderr)
                return 2
            lesson_id = lesson.id
        _print_notices(store, lang)
        saved = store.reset(lesson_id)
        _print_notices(store, lang)
        what = tr(lang, "reset_all") if lesson_id is None else lesson.title.get(lang)
        print(tr(lang, "reset_done", what=what))
        return 0 if saved else 1

    if args.check is not None:
        from gradshell.learn.teaching import check_lessons

        return check_lessons(args.check, course)

    if args.export is not None:
        from gradshell.learn.teaching import export

        return export(
            store,
            course,
            args.export,
            lang=lang,
            learner=args.learner,
            force=args.force,
            interactive=interactive,
        )

    if args.list:
        store.load()
        _print_notices(store, lang)
        tutor = Tutor(course, lang=lang, store=store, out=io.StringIO(), color=_color(interactive))
        sys.stdout.write(tutor.lesson_table())
        return 0

    if args.name is not None and find_lesson(course, args.name) is None:
        print(tr(lang, "unknown_lesson", name=args.name), file=sys.stderr)
        return 2

    from gradshell.kernel.tutor_client import KernelTutor
    from gradshell.learn.terminal import PipeReader, PromptReader, run_tutor

    tutor = KernelTutor(
        extra=extra,
        lang=lang,
        out=sys.stdout,
        store=store,
        time_limit=None if interactive else DEFAULT_TIME_LIMIT,
        color=_color(interactive),
    )
    try:
        if not tutor.start(args.name):
            return 2
        reader = PromptReader() if interactive else PipeReader(sys.stdin, sys.stdout)
        return run_tutor(tutor, reader)  # type: ignore[arg-type]
    finally:
        tutor.close()


def _color(interactive: bool) -> bool:
    from gradshell.viz.common import color_wanted

    return interactive and color_wanted()


def _print_notices(store: ProgressStore, lang: str) -> None:
    for notice in store.take_notices():
        print(tr(lang, f"store_{notice.kind}", **notice.fields), file=sys.stderr)


__all__ = ["main"]
