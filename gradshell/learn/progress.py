"""Where each learner is in the course, kept in one JSON file in their data directory.

The file is `<data dir>/learn/progress.json` (the data directory is the shell's, where
its history lives: `$GRADSHELL_DATA_DIR`, `$XDG_DATA_HOME/gradshell`, ...)::

    {"format": "gradshell-learn-progress", "version": 1, "last": "accumulation",
     "lessons": {"accumulation": {"step": "zero", "done": ["first"], "skipped": [],
                                  "finished": false, "updated": "2025-01-01T12:00:00Z"}}}

Writes are atomic: the new text goes to a temporary file in the same folder, is flushed
and fsync'd, then renamed over the old file (and the folder fsync'd), so a kill -9 at
any moment leaves either the old or the new file, never a mix. Every save merges into
what is on disk, so two shells on different lessons do not undo each other.

Reading never raises: a file that is not valid progress (truncated, garbage, the wrong
shape) or that a newer gradshell wrote (a higher version) is moved aside next to it
(`progress.json.corrupt-<time>` / `progress.json.v2-<time>`) with a `Notice` for the
learner, and progress starts empty. If the file cannot be moved aside or cannot be
read at all, it is left untouched and nothing is saved this session. If the folder
cannot be written, the learner is told once and the lesson goes on without saving.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMAT_TAG = "gradshell-learn-progress"
VERSION = 1
"""The progress format this version writes; files with a higher version are set aside."""

FILE_NAME = "progress.json"
_TEMP_PREFIX = ".progress-"
_TEMP_SUFFIX = ".tmp"
#: Temporary files older than this are leftovers of a killed writer and are removed.
STALE_TEMP_SECONDS = 600
#: The largest progress file read (a real one is a few kilobytes).
MAX_BYTES = 8 * 1024 * 1024


def default_path() -> Path:
    """The progress file in the user's gradshell data directory."""
    from gradshell.shell.history import data_dir

    return data_dir() / "learn" / FILE_NAME


@dataclass
class LessonProgress:
    """One lesson's progress: the step to resume at and what was passed or skipped."""

    step: str | None = None
    done: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    finished: bool = False
    updated: str = ""
    #: The learner's inputs in the step to resume at that ran without an error, re-run
    #: when the lesson is opened again so the variables they made come back.
    work: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "step": self.step,
            "done": list(self.done),
            "skipped": list(self.skipped),
            "finished": self.finished,
            "updated": self.updated,
            "work": list(self.work),
        }

    @classmethod
    def from_json(cls, data: Any) -> LessonProgress:
        """Parse the JSON form; raises ValueError when it is not one."""
        if not isinstance(data, dict):
            raise ValueError("a lesson entry is not an object")
        step = data.get("step")
        done = data.get("done", [])
        skipped = data.get("skipped", [])
        finished = data.get("finished", False)
        updated = data.get("updated", "")
        work = data.get("work", [])
        if step is not None and not isinstance(step, str):
            raise ValueError("a lesson's step is not a string")
        for name, items in (("done", done), ("skipped", skipped), ("work", work)):
            if not isinstance(items, list) or not all(isinstance(s, str) for s in items):
                raise ValueError(f"a lesson's {name} list is not a list of strings")
        if not isinstance(finished, bool) or not isinstance(updated, str):
            raise ValueError("a lesson's finished/updated fields have the wrong type")
        return cls(step, list(done), list(skipped), finished, updated, list(work))


@dataclass
class Progress:
    """One learner's progress through the course."""

    lessons: dict[str, LessonProgress] = field(default_factory=dict)
    last: str | None = None

    def lesson(self, lesson_id: str) -> LessonProgress:
        """The progress of `lesson_id` (created empty on first use)."""
        entry = self.lessons.get(lesson_id)
        if entry is None:
            entry = LessonProgress()
            self.lessons[lesson_id] = entry
        return entry

    def to_json(self) -> dict[str, Any]:
        """The JSON form of the whole file."""
        return {
            "format": FORMAT_TAG,
            "version": VERSION,
            "last": self.last,
            "lessons": {k: v.to_json() for k, v in sorted(self.lessons.items())},
        }


@dataclass(frozen=True)
class Notice:
    """Something the learner should be told about their progress file (see i18n keys
    `store_<kind>`)."""

    kind: str  # corrupt | future | unmovable | unwritable | unreadable
    fields: dict[str, Any]


class FutureVersion(ValueError):
    """The file was written by a newer gradshell."""

    def __init__(self, version: int) -> None:
        super().__init__(f"format version {version}")
        self.version = version


def parse(text: str) -> Progress:
    """Parse a progress file's text; raises ValueError (or FutureVersion) if it is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON: {exc.msg} at line {exc.lineno}") from None
    except RecursionError:
        raise ValueError("not valid JSON: nested too deeply") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT_TAG:
        raise ValueError("not a gradshell progress file")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError("its version is missing or not a positive whole number")
    if version > VERSION:
        raise FutureVersion(version)
    lessons = data.get("lessons", {})
    if not isinstance(lessons, dict):
        raise ValueError("its lessons are not an object")
    last = data.get("last")
    if last is not None and not isinstance(last, str):
        raise ValueError("its last lesson is not a string")
    return Progress({str(k): LessonProgress.from_json(v) for k, v in lessons.items()}, last)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _stamp() -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime())


def atomic_write(path: Path, text: str) -> None:
    """Write `text` to `path` atomically (temp file, flush, fsync, rename, fsync folder);
    raises OSError, leaving the old file as it was."""
    folder = path.parent
    fd, temp = tempfile.mkstemp(prefix=_TEMP_PREFIX, suffix=_TEMP_SUFFIX, dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_folder(folder)


def _fsync_folder(folder: Path) -> None:
    if os.name != "posix":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class ProgressStore:
    """The progress file of one user: `load()` once, then `save()` after each change."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.progress = Progress()
        self.notices: list[Notice] = []
        self.writable = True
        self._told_unwritable = False

    # -- reading ----------------------------------------------------------------------------
    def load(self) -> Progress:
        """Read the file (missing: empty progress); never raises. Problems become notices."""
        self.progress = Progress()
        self._remove_stale_temps()
        try:
            with open(self.path, "rb") as f:
                data = f.read(MAX_BYTES + 1)
        except FileNotFoundError:
            return self.progress
        except IsADirectoryError as exc:
            self._refuse("unreadable", error=exc.strerror or str(exc))
            return self.progress
        except OSError as exc:
            self._refuse("unreadable", error=exc.strerror or str(exc))
            return self.progress
        try:
            if len(data) > MAX_BYTES:
                raise ValueError("far too large for a progress file")
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError("not UTF-8 text") from None
            self.progress = parse(text)
        except FutureVersion as exc:
            self._set_aside(
                "future", f".v{exc.version}-{_stamp()}", version=exc.version, supported=VERSION
            )
        except ValueError as exc:
            self._set_aside("corrupt", f".corrupt-{_stamp()}", detail=str(exc))
        return self.progress

    def _refuse(self, kind: str, **fields: Any) -> None:
        self.writable = False
        self.notices.append(Notice(kind, {"path": str(self.path), **fields}))

    def _set_aside(self, kind: str, suffix: str, **fields: Any) -> None:
        target = self.path.with_name(self.path.name + suffix)
        n = 1
        while target.exists():
            n += 1
            target = self.path.with_name(f"{self.path.name}{suffix}-{n}")
        try:
            os.replace(self.path, target)
        except OSError as exc:
            detail = fields.get("detail") or f"format version {fields.get('version')}"
            self._refuse("unmovable", detail=detail, error=exc.strerror or str(exc))
            return
        self.notices.append(Notice(kind, {"path": str(self.path), "moved": str(target), **fields}))

    def _remove_stale_temps(self) -> None:
        folder = self.path.parent
        try:
            names = os.listdir(folder)
        except OSError:
            return
        cutoff = time.time() - STALE_TEMP_SECONDS
        for name in names:
            if name.startswith(_TEMP_PREFIX) and name.endswith(_TEMP_SUFFIX):
                temp = folder / name
                with contextlib.suppress(OSError):
                    if temp.stat().st_mtime < cutoff:
                        temp.unlink()

    # -- writing ----------------------------------------------------------------------------
    def save(self, touched: list[str] | None = None) -> bool:
        """Write the progress atomically; returns False (with a notice, once) on failure.

        `touched` names the lessons this session changed: only they (and `last`) replace
        what is on disk now; other lessons keep what another shell may have saved.
        """
        if not self.writable:
            return False
        merged = self._merge(touched)
        text = json.dumps(merged.to_json(), ensure_ascii=False, indent=1) + "\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, text)
        except OSError as exc:
            if not self._told_unwritable:
                self._told_unwritable = True
                self.notices.append(
                    Notice(
                        "unwritable", {"path": str(self.path), "error": exc.strerror or str(exc)}
                    )
                )
            return False
        return True

    def _merge(self, touched: list[str] | None) -> Progress:
        if touched is None:
            return self.progress
        try:
            with open(self.path, encoding="utf-8") as f:
                on_disk = parse(f.read(MAX_BYTES))
        except (OSError, ValueError, UnicodeDecodeError):
            return self.progress
        for lesson_id, entry in on_disk.lessons.items():
            if lesson_id not in touched and lesson_id in self.progress.lessons:
                self.progress.lessons[lesson_id] = entry
            elif lesson_id not in self.progress.lessons:
                self.progress.lessons[lesson_id] = entry
        return self.progress

    def record(
        self,
        lesson_id: str,
        *,
        step: str | None = None,
        done: str | None = None,
        skipped: str | None = None,
        finished: bool | None = None,
        work: list[str] | None = None,
    ) -> bool:
        """Update one lesson's progress and save at once; returns whether it was saved.
        Moving to another step forgets the work kept for the last one."""
        entry = self.progress.lesson(lesson_id)
        if step is not None:
            if step != entry.step:
                entry.work = []
            entry.step = step
        if work is not None:
            entry.work = list(work)
        if done is not None:
            if done not in entry.done:
                entry.done.append(done)
            if done in entry.skipped:
                entry.skipped.remove(done)
        if skipped is not None and skipped not in entry.done and skipped not in entry.skipped:
            entry.skipped.append(skipped)
        if finished is not None:
            entry.finished = finished or entry.finished
        entry.updated = _now()
        self.progress.last = lesson_id
        return self.save([lesson_id])

    def reset(self, lesson_id: str | None = None) -> bool:
        """Forget one lesson's progress (all lessons when None) and save."""
        if lesson_id is None:
            self.progress = Progress()
            return self.save(None)
        self.progress.lessons.pop(lesson_id, None)
        if self.progress.last == lesson_id:
            self.progress.last = None
        merged = self._merge([lesson_id])
        merged.lessons.pop(lesson_id, None)
        return self.save(None)

    def take_notices(self) -> list[Notice]:
        """The notices not yet shown (and forget them)."""
        out, self.notices = self.notices, []
        return out


__all__ = [
    "FORMAT_TAG",
    "VERSION",
    "FutureVersion",
    "LessonProgress",
    "Notice",
    "Progress",
    "ProgressStore",
    "atomic_write",
    "default_path",
    "parse",
]
