"""A learner's progress as a report a teacher can collect: `gradshell learn --export FILE`.

The progress file (`progress.json`) is the shell's own bookkeeping; the export is made to
be read by people and by a teacher's scripts, and says where each lesson of the course
stands. Its format (version 1)::

    {
      "format": "gradshell-learn-export",
      "version": 1,
      "exported": "2026-01-01T12:00:00Z",     # UTC, when the export was written
      "learner": "Ada",                       # --learner NAME, or null
      "lang": "en",                           # the language of the titles below
      "totals": {"lessons": 10, "finished": 2, "started": 1,
                 "steps": 60, "done": 14, "skipped": 2},
      "lessons": [
        {"number": 1, "id": "requires-grad", "title": "Tensors that ask for gradients",
         "status": "finished",                # "new", "started" or "finished"
         "steps": 6,                          # how many steps the lesson has
         "done": ["factory-argument", ...],   # step ids passed (in course order)
         "skipped": ["dtype"],                # step ids skipped (next/skip)
         "at": null,                          # started: {"index": 3, "id": "dtype"}
         "updated": "2026-01-01T11:58:00Z"}   # last change, "" if never
      ]
    }

Every lesson of the course is listed, in order, whether it was opened or not; a step id
that is no longer in the course (the lesson changed) is left out.
"""

from __future__ import annotations

import json
import time
from typing import Any

from gradshell.learn.lesson import Lesson
from gradshell.learn.progress import Progress

EXPORT_FORMAT = "gradshell-learn-export"
EXPORT_VERSION = 1


def _lesson_entry(lesson: Lesson, progress: Progress, lang: str) -> dict[str, Any]:
    entry = progress.lessons.get(lesson.id)
    ids = [s.id for s in lesson.steps]
    done = [i for i in ids if entry is not None and i in entry.done]
    skipped = [i for i in ids if entry is not None and i in entry.skipped and i not in done]
    at = None
    if entry is None or (not done and not skipped and not entry.finished and entry.step is None):
        status = "new"
    elif entry.finished:
        status = "finished"
    else:
        status = "started"
        index = lesson.step_index(entry.step) if entry.step else None
        if index is not None:
            at = {"index": index + 1, "id": ids[index]}
    return {
        "number": lesson.number,
        "id": lesson.id,
        "title": lesson.title.get(lang),
        "status": status,
        "steps": len(ids),
        "done": done,
        "skipped": skipped,
        "at": at,
        "updated": entry.updated if entry is not None else "",
    }


def export_progress(
    course: list[Lesson], progress: Progress, *, lang: str = "en", learner: str | None = None
) -> dict[str, Any]:
    """The export document (see the module docstring) for `progress` over `course`."""
    lessons = [_lesson_entry(lesson, progress, lang) for lesson in course]
    totals = {
        "lessons": len(lessons),
        "finished": sum(1 for e in lessons if e["status"] == "finished"),
        "started": sum(1 for e in lessons if e["status"] == "started"),
        "steps": sum(e["steps"] for e in lessons),
        "done": sum(len(e["done"]) for e in lessons),
        "skipped": sum(len(e["skipped"]) for e in lessons),
    }
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "learner": learner,
        "lang": lang,
        "totals": totals,
        "lessons": lessons,
    }


def export_text(document: dict[str, Any]) -> str:
    """The export document as the JSON text written to the file."""
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


__all__ = ["EXPORT_FORMAT", "EXPORT_VERSION", "export_progress", "export_text"]
