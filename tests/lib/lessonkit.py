"""Helpers for the lesson tests: the course, and a lesson runtime placed at the start
of any step."""

from __future__ import annotations

from gradshell.learn.lesson import Lesson, find_lesson, load_course
from gradshell.learn.runtime import LessonRuntime

_COURSE: list[Lesson] | None = None


def course() -> list[Lesson]:
    """The course in lessons/ (read once)."""
    global _COURSE
    if _COURSE is None:
        _COURSE = load_course()
    return _COURSE


def lesson(name: str) -> Lesson:
    """One lesson of the course by number or id."""
    found = find_lesson(course(), name)
    assert found is not None, name
    return found


def runtime_at(name: str, step_id: str, lang: str = "en") -> tuple[LessonRuntime, object]:
    """A lesson's runtime with the state a learner has at the start of `step_id`."""
    les = lesson(name)
    index = les.step_index(step_id)
    assert index is not None, step_id
    rt = LessonRuntime(les, lang=lang, time_limit=60.0)
    rt.rebuild(index)
    return rt, les.steps[index]


def run_all(rt: LessonRuntime, *sources: str) -> None:
    """Run learner inputs one after the other."""
    for source in sources:
        rt.run_cell(source)
