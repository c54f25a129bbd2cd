"""gradshell.learn: guided lessons (`gradshell learn`), in English and Chinese.

Modules, one job each:

* `lesson`    — the lesson file format (TOML in `lessons/`), loader and validation
* `checks`    — state checks (values, dtype, requires_grad, grad_fn, .grad, errors, ...)
* `runtime`   — a lesson's shell session and what happened during the current step
* `engine`    — the `Tutor`: steps, predictions, hints and the commands
* `progress`  — the per-user progress file (atomic writes, damaged files set aside)
* `terminal`  — reading input from a terminal (prompt_toolkit) or a pipe
* `authoring` — for lesson writers: verify a lesson, regenerate its solutions' output
* `i18n`      — the engine's own messages and the default language
* `cli`       — the `gradshell learn` command
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "Lesson": "gradshell.learn.lesson",
    "LessonError": "gradshell.learn.lesson",
    "load_course": "gradshell.learn.lesson",
    "load_lesson": "gradshell.learn.lesson",
    "LessonRuntime": "gradshell.learn.runtime",
    "Tutor": "gradshell.learn.tutor",
    "ProgressStore": "gradshell.learn.progress",
    "verify_lesson": "gradshell.learn.authoring",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gradshell.learn' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
