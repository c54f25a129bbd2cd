"""The lesson format: one TOML file per lesson in `lessons/`, read and validated here.

A file `lessons/NN-slug.toml` is lesson number NN with the id `slug`; lessons are
ordered by their number. Every text a learner reads is given in English and Chinese
(`title.en` / `title.zh`, ...). `lessons/README.md` describes the format with examples;
in short::

    format = 1
    title.en = "..."          title.zh = "..."
    summary.en = "..."        summary.zh = "..."
    recap.en = "..."          recap.zh = "..."     # shown when the lesson is complete
    seeds = ["000", "002"]                         # the seed tutorials it draws on
    style = "modern"                               # the print style it starts in
    setup = "import torch"                         # run quietly before step 1

    [[steps]]
    id = "weights"                                 # unique within the lesson
    title.en / title.zh, text.en / text.zh, task.en / task.zh
    hints.en = ["first", "more precise"]  hints.zh = [...]   # progressive, same count
    done.en / done.zh                              # optional: said after success
    solution = '''
    >>> y.backward(torch.tensor([0.1, 1.0, 10.0]))
    >>> x.grad
    tensor([ 0.2000,  2.0000, 20.0000])
    '''                                            # a transcript: code and its output
    [steps.predict]                                # optional: predict, then reveal
    value = "x.grad"                               # or grad_of = "EXPR" with wrt = "x"
    question.en / question.zh
    [[steps.checks]]                               # state checks, all must pass
    tensor = "x"
    grad = [0.2, 2.0, 20.0]

The checks a step can have are listed in `CHECK_KINDS`; `gradshell.learn.checks`
evaluates them. `load_lesson` raises `LessonError` (file and reason) for anything
missing, misspelt or of the wrong type, so a broken lesson fails the tests, not a learner.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from gradshell.learn.i18n import LANGS
from gradshell.replay.model import Example, TranscriptError
from gradshell.replay.parser import parse_transcript

FORMAT = 1
"""The lesson file format this version reads."""

_FILE = re.compile(r"^(?P<number>\d{1,3})-(?P<slug>[a-z0-9]+(?:-[a-z0-9]+)*)\.toml$")
_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

#: Check kinds (the key that names the check's subject) and the properties each allows.
CHECK_KINDS: dict[str, frozenset[str]] = {
    # a tensor named by an expression: its values and autograd state
    "tensor": frozenset(
        {
            "values",
            "dtype",
            "shape",
            "requires_grad",
            "is_leaf",
            "grad_fn",
            "grad",
            "grad_none",
            "grad_cleared",
            "type",
            "atol",
            "rtol",
        }
    ),
    # any value named by an expression (exists; equals; type name)
    "value": frozenset({"equals", "type", "atol", "rtol"}),
    # an exception of this type was raised by the learner's code in this step
    "raised": frozenset({"match"}),
    # the tensor's .grad was cleared (zero_(), = None, ...) before a backward() added to it
    "zeroed": frozenset(),
    # the learner showed this value (typed the expression, or printed it)
    "shown": frozenset(),
    # the learner ran this magic (%explain, %graph, ...) in this step
    "ran": frozenset(),
    # the session's print style
    "style": frozenset(),
    # a backward pass in this step started from this tensor
    "backward_from": frozenset(),
    # a backward pass in this step went through this tensor (its grad_fn ran, or a
    # gradient reached this leaf's .grad)
    "backward_reached": frozenset(),
    # the learner's code showed a warning of this category (UserWarning...) in this step
    "warned": frozenset({"match"}),
    # an output of this step shows this value (printed, to any number of decimals)
    "printed": frozenset(),
    # an expression that must be true (needs a message)
    "true": frozenset(),
}


class LessonError(ValueError):
    """A lesson file that cannot be used; names the file and what is wrong."""

    def __init__(self, path: str | Path, message: str) -> None:
        self.path = str(path)
        self.message = message
        super().__init__(f"{path}: {message}")


@dataclass(frozen=True)
class Text:
    """A text in both languages."""

    en: str
    zh: str

    def get(self, lang: str) -> str:
        """The text in `lang` ('en' or 'zh')."""
        return self.zh if lang == "zh" else self.en


@dataclass(frozen=True)
class Check:
    """One check on the session's state: its kind, subject and expected properties."""

    kind: str
    subject: str
    props: dict[str, Any] = field(default_factory=dict)
    message: Text | None = None


@dataclass(frozen=True)
class Predict:
    """A predict-then-reveal question: a value (`value`) or a gradient (`grad_of`, `wrt`)."""

    question: Text
    value: str | None = None
    grad_of: str | None = None
    wrt: str | None = None


@dataclass(frozen=True)
class Step:
    """One step of a lesson."""

    id: str
    title: Text
    text: Text
    task: Text
    hints: tuple[Text, ...]
    solution: tuple[Example, ...]
    solution_text: str
    checks: tuple[Check, ...]
    predict: Predict | None = None
    done: Text | None = None

    def reference_code(self) -> list[str]:
        """The reference solution's inputs, in order."""
        return [ex.source for ex in self.solution]


@dataclass(frozen=True)
class Lesson:
    """A lesson: its place in the course, texts and steps."""

    id: str
    number: int
    title: Text
    summary: Text
    steps: tuple[Step, ...]
    path: str
    recap: Text | None = None
    seeds: tuple[str, ...] = ()
    style: str = "modern"
    setup: str = ""

    def step_index(self, step_id: str) -> int | None:
        """The index of the step called `step_id` (None if there is none)."""
        for i, step in enumerate(self.steps):
            if step.id == step_id:
                return i
        return None

    @property
    def name(self) -> str:
        """The lesson's file name without `.toml` (`05-accumulation`)."""
        return f"{self.number:02d}-{self.id}"


# --- reading --------------------------------------------------------------------------


def lessons_dir() -> Path:
    """Where the course lives: `$GRADSHELL_LESSONS`, the copy packaged with gradshell
    (`gradshell/_lessons`), or the `lessons/` folder of a source checkout."""
    override = os.environ.get("GRADSHELL_LESSONS")
    if override:
        return Path(override).expanduser()
    package = Path(__file__).resolve().parent.parent
    packaged = package / "_lessons"
    if packaged.is_dir():
        return packaged
    return package.parent / "lessons"


#: A teacher's lessons beside the built-in course: folders or lesson files, separated as
#: in PATH (`GRADSHELL_LESSON_PATH=~/course:~/extra/11-my-chain.toml`).
LESSON_PATH_VARIABLE = "GRADSHELL_LESSON_PATH"


def extra_lesson_paths(given: Iterable[str | Path] = ()) -> list[Path]:
    """The teacher's lesson folders and files: those `given` (`--lessons DIR`, a lesson
    file named on the command line), then those in `$GRADSHELL_LESSON_PATH`; absolute."""
    found = [Path(p).expanduser() for p in given]
    told = os.environ.get(LESSON_PATH_VARIABLE, "")
    found += [Path(p).expanduser() for p in told.split(os.pathsep) if p]
    unique: list[Path] = []
    for path in found:
        path = Path(os.path.abspath(path))
        if path not in unique:
            unique.append(path)
    return unique


def load_course(folder: str | Path | None = None, extra: Iterable[str | Path] = ()) -> list[Lesson]:
    """Every lesson in `folder` (default `lessons_dir()`) and in `extra` (folders of
    lessons, or lesson files: a teacher's course beside the built-in one), in order of
    their numbers; two lessons with one number or id are an error naming both files."""
    where = Path(folder) if folder is not None else lessons_dir()
    files = sorted(where.glob("*.toml")) if where.is_dir() else []
    for path in map(Path, extra):
        if path.is_dir():
            files += sorted(path.glob("*.toml"))
        elif path.is_file():
            files.append(path)
        else:
            raise LessonError(path, "no such lesson file or folder")
    lessons = [load_lesson(p) for p in files]
    lessons.sort(key=lambda lesson: lesson.number)
    seen: dict[int, str] = {}
    ids: dict[str, str] = {}
    for lesson in lessons:
        if lesson.number in seen:
            raise LessonError(
                lesson.path, f"lesson number {lesson.number} is also {seen[lesson.number]}"
            )
        if lesson.id in ids:
            raise LessonError(lesson.path, f"lesson id {lesson.id!r} is also {ids[lesson.id]}")
        seen[lesson.number] = lesson.path
        ids[lesson.id] = lesson.path
    return lessons


def load_lesson(path: str | Path) -> Lesson:
    """Read and validate one lesson file; raises `LessonError`."""
    p = Path(path)
    m = _FILE.match(p.name)
    if m is None:
        raise LessonError(p, "a lesson file is named NN-name.toml (e.g. 05-accumulation.toml)")
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LessonError(p, f"cannot read it: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise LessonError(p, f"not UTF-8 text: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise LessonError(p, f"not valid TOML: {exc}") from None
    return parse_lesson(data, p, number=int(m.group("number")), lesson_id=m.group("slug"))


def parse_lesson(data: dict[str, Any], path: str | Path, *, number: int, lesson_id: str) -> Lesson:
    """Build a Lesson from parsed TOML data; raises `LessonError`."""
    r = _Reader(path)
    r.keys(
        data,
        "lesson",
        required={"format", "title", "summary", "steps"},
        optional={"recap", "seeds", "style", "setup"},
    )
    version = data["format"]
    if not isinstance(version, int) or isinstance(version, bool):
        r.fail("format must be a whole number")
    if version != FORMAT:
        r.fail(f"format {version} is not one this gradshell reads (it reads {FORMAT})")
    style = data.get("style", "modern")
    if style not in ("modern", "legacy"):
        r.fail("style must be modern or legacy")
    seeds = data.get("seeds", [])
    if not isinstance(seeds, list) or not all(isinstance(s, str) for s in seeds):
        r.fail("seeds must be a list of strings")
    steps_data = data["steps"]
    if not isinstance(steps_data, list) or not steps_data:
        r.fail("a lesson needs at least one [[steps]] table")
    steps = tuple(_step(r, s, i) for i, s in enumerate(steps_data))
    ids = [s.id for s in steps]
    for step_id in ids:
        if ids.count(step_id) > 1:
            r.fail(f"two steps have the id {step_id!r}")
    return Lesson(
        id=lesson_id,
        number=number,
        title=r.text(data["title"], "title"),
        summary=r.text(data["summary"], "summary"),
        steps=steps,
        path=str(path),
        recap=r.text(data["recap"], "recap") if "recap" in data else None,
        seeds=tuple(seeds),
        style=style,
        setup=r.string(data.get("setup", ""), "setup").strip(),
    )


class _Reader:
    """Validation helpers that raise LessonError with the file's name."""

    def __init__(self, path: str | Path) -> None:
        self.path = path

    def fail(self, message: str) -> NoReturn:
        """Refuse the lesson with `message`."""
        raise LessonError(self.path, message)

    def keys(self, table: Any, where: str, *, required: set[str], optional: set[str]) -> None:
        """`table` must be a table with the required keys and no others."""
        if not isinstance(table, dict):
            self.fail(f"{where} must be a table")
        missing = sorted(required - set(table))
        if missing:
            self.fail(f"{where} is missing {', '.join(missing)}")
        unknown = sorted(set(table) - required - optional)
        if unknown:
            self.fail(f"{where} has unknown key(s) {', '.join(unknown)}")

    def string(self, value: Any, where: str) -> str:
        """`value` must be a string."""
        if not isinstance(value, str):
            self.fail(f"{where} must be a string")
        return value

    def text(self, value: Any, where: str) -> Text:
        """`value` must be a table of two non-empty strings, `en` and `zh`."""
        if not isinstance(value, dict) or set(value) != set(LANGS):
            self.fail(f"{where} needs exactly {where}.en and {where}.zh")
        en, zh = (self.string(value[k], f"{where}.{k}").strip() for k in LANGS)
        if not en or not zh:
            self.fail(f"{where} is empty in one language")
        return Text(_dedent(en), _dedent(zh))


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).strip()


def _step(r: _Reader, data: Any, index: int) -> Step:
    where = f"step {index + 1}"
    r.keys(
        data,
        where,
        required={"id", "title", "text", "task", "hints", "solution", "checks"},
        optional={"predict", "done"},
    )
    step_id = r.string(data["id"], f"{where}.id")
    if not _ID.match(step_id):
        r.fail(f"{where}: id {step_id!r} must be lower-case words joined by '-'")
    where = f"step {step_id!r}"
    hints = data["hints"]
    if not isinstance(hints, dict) or set(hints) != set(LANGS):
        r.fail(f"{where}: hints needs hints.en and hints.zh (lists)")
    en, zh = hints["en"], hints["zh"]
    if not isinstance(en, list) or not isinstance(zh, list) or not en or len(en) != len(zh):
        r.fail(f"{where}: hints.en and hints.zh must be lists of the same, non-zero length")
    hint_texts = tuple(
        r.text({"en": a, "zh": b}, f"{where}: hint {k + 1}")
        for k, (a, b) in enumerate(zip(en, zh, strict=True))
    )
    solution_text = r.string(data["solution"], f"{where}.solution")
    try:
        transcript = parse_transcript(solution_text, f"{r.path} ({where})")
    except TranscriptError as exc:
        r.fail(f"{where}: the solution is not a `>>>` transcript: {exc.message}")
    examples = tuple(ex for s in transcript.sessions for ex in s.examples)
    if len(transcript.sessions) != 1:
        r.fail(f"{where}: the solution must be one session (no `# replay: session=` lines)")
    checks_data = data["checks"]
    if not isinstance(checks_data, list) or not checks_data:
        r.fail(f"{where}: a step needs at least one [[steps.checks]] table")
    checks = tuple(_check(r, c, f"{where}, check {k + 1}") for k, c in enumerate(checks_data))
    predict = None
    if "predict" in data:
        predict = _predict(r, data["predict"], f"{where}.predict")
    return Step(
        id=step_id,
        title=r.text(data["title"], f"{where}.title"),
        text=r.text(data["text"], f"{where}.text"),
        task=r.text(data["task"], f"{where}.task"),
        hints=hint_texts,
        solution=examples,
        solution_text=solution_text,
        checks=checks,
        predict=predict,
        done=r.text(data["done"], f"{where}.done") if "done" in data else None,
    )


def _check(r: _Reader, data: Any, where: str) -> Check:
    if not isinstance(data, dict):
        r.fail(f"{where} must be a table")
    kinds = [k for k in data if k in CHECK_KINDS]
    if len(kinds) != 1:
        r.fail(f"{where} must name exactly one of: {', '.join(CHECK_KINDS)}")
    kind = kinds[0]
    subject = r.string(data[kind], f"{where}.{kind}").strip()
    if not subject:
        r.fail(f"{where}: {kind} is empty")
    allowed = CHECK_KINDS[kind]
    props = {k: v for k, v in data.items() if k not in (kind, "message")}
    unknown = sorted(set(props) - allowed)
    if unknown:
        r.fail(f"{where}: {kind} checks do not take {', '.join(unknown)}")
    message = r.text(data["message"], f"{where}.message") if "message" in data else None
    if kind == "true" and message is None:
        r.fail(f"{where}: a `true` check needs a message (message.en, message.zh)")
    if kind == "style" and subject not in ("modern", "legacy"):
        r.fail(f"{where}: style must be modern or legacy")
    _check_props(r, kind, props, where)
    return Check(kind, subject, props, message)


def _number_array(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    return isinstance(value, list) and all(_number_array(v) for v in value)


def _check_props(r: _Reader, kind: str, props: dict[str, Any], where: str) -> None:
    for key, value in props.items():
        if key in ("values", "grad") and not _number_array(value):
            r.fail(f"{where}: {key} must be a number or a (nested) list of numbers")
        elif key == "shape" and not (
            isinstance(value, list) and all(isinstance(v, int) and v >= 0 for v in value)
        ):
            r.fail(f"{where}: shape must be a list of sizes, e.g. [2, 2]")
        elif key in ("requires_grad", "is_leaf", "grad_none", "grad_cleared") and not isinstance(
            value, bool
        ):
            r.fail(f"{where}: {key} must be true or false")
        elif key in ("dtype", "grad_fn", "type", "match") and not isinstance(value, str):
            r.fail(f"{where}: {key} must be a string")
        elif key in ("atol", "rtol") and not (
            isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
        ):
            r.fail(f"{where}: {key} must be a non-negative number")
    if kind == "value" and "equals" in props:
        value = props["equals"]
        if not (_number_array(value) or isinstance(value, str | bool)):
            r.fail(f"{where}: equals must be a number, list of numbers, string or boolean")


def _predict(r: _Reader, data: Any, where: str) -> Predict:
    r.keys(data, where, required={"question"}, optional={"value", "grad_of", "wrt"})
    value = data.get("value")
    grad_of = data.get("grad_of")
    wrt = data.get("wrt")
    if (value is None) == (grad_of is None):
        r.fail(f"{where} needs either value = EXPR or grad_of = EXPR (with wrt = NAME)")
    if grad_of is not None and (not isinstance(wrt, str) or not wrt.isidentifier()):
        r.fail(f"{where}: grad_of needs wrt = the name of the leaf tensor")
    if value is not None and wrt is not None:
        r.fail(f"{where}: wrt goes with grad_of, not with value")
    for key, v in (("value", value), ("grad_of", grad_of)):
        if v is not None:
            r.string(v, f"{where}.{key}")
    return Predict(r.text(data["question"], f"{where}.question"), value, grad_of, wrt)


def find_lesson(lessons: list[Lesson], name: str) -> Lesson | None:
    """The lesson `name` names: its number (`5`, `05`), id (`accumulation`) or file
    name (`05-accumulation`, with or without `.toml`)."""
    key = name.strip().lower().removesuffix(".toml")
    for lesson in lessons:
        if key in (lesson.id, lesson.name):
            return lesson
    if key.isdigit():
        for lesson in lessons:
            if lesson.number == int(key):
                return lesson
    return None


__all__ = [
    "CHECK_KINDS",
    "FORMAT",
    "LESSON_PATH_VARIABLE",
    "Check",
    "Lesson",
    "LessonError",
    "Predict",
    "Step",
    "Text",
    "extra_lesson_paths",
    "find_lesson",
    "lessons_dir",
    "load_course",
    "load_lesson",
    "parse_lesson",
]
