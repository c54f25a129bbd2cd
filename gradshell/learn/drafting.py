"""A lesson drafted from a transcript: `gradshell learn --new TRANSCRIPT`.

A teacher types a session once (or takes one from a tutorial) and gets a lesson file to
edit: each group of `>>>` statements becomes a step (a blank line or a line of prose
starts a new group; prose before a group — `# A title` or plain text — becomes the
step's title and text), its statements and outputs become the reference solution, and
the checks are drafted from what the statements do:

* `NAME = ...`             → `value = "NAME"` (the variable exists)
* `E.backward(...)`        → `backward_from = "E"` for a name, else
                             `backward_reached = "NAME"` for the name it starts from
* a displayed value        → `shown = "EXPR"`
* `print(NAME, ...)`       → `shown = "NAME"` for each plain name or attribute printed
* `%magic ...`             → `ran = "magic"`
* a traceback in the output → `raised = "ErrorType"`

Nothing is run here: texts in both languages are placeholders marked TODO, and the
author then runs `gradshell learn --check FILE`, which replays every solution in a
sandboxed kernel.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from gradshell.replay.model import Example, TranscriptError
from gradshell.replay.parser import parse_transcript


class DraftError(ValueError):
    """The transcript cannot become a lesson (the reason says why)."""


@dataclass
class _Group:
    prose: list[str] = field(default_factory=list)
    examples: list[Example] = field(default_factory=list)


_TRACEBACK_LAST = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:Error|Exception|Warning)):")


def slug(text: str) -> str:
    """A lesson or step id from free text: lower-case words joined by '-'."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words)[:40].strip("-") or "lesson"


def _groups(text: str, path: str) -> list[_Group]:
    try:
        transcript = parse_transcript(text, path)
    except TranscriptError as exc:
        raise DraftError(f"{path}: not a transcript: {exc.message}") from None
    examples = [ex for s in transcript.sessions for ex in s.examples]
    if not examples:
        raise DraftError(f"{path}: no `>>>` statements found")
    lines = text.split("\n")
    groups: list[_Group] = []
    end = 1  # the 1-based line after the previous example's output
    for ex in examples:
        gap = lines[end - 1 : ex.line - 1]
        prose = [g.strip().lstrip("#").strip() for g in gap if g.strip()]
        if not groups or gap:
            groups.append(_Group(prose=prose))
        groups[-1].examples.append(ex)
        end = ex.want_end
    return [g for g in groups if g.examples]


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _checks_for(ex: Example) -> list[tuple[str, str]]:
    """Checks (kind, subject) that one statement suggests."""
    source = ex.source.strip()
    output = "\n".join(ex.want)
    if source.startswith("%"):
        return [("ran", source[1:].split(None, 1)[0])] if source[1:].strip() else []
    found: list[tuple[str, str]] = []
    for line in reversed(ex.want):
        m = _TRACEBACK_LAST.match(line)
        if m and not m.group(1).endswith("Warning"):
            return [("raised", m.group(1))]
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    found.append(("value", target.id))
        elif isinstance(stmt, ast.Expr):
            value = stmt.value
            if (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Attribute)
                and value.func.attr == "backward"
            ):
                owner = value.func.value
                if isinstance(owner, ast.Name):
                    found.append(("backward_from", owner.id))
                elif (name := _root_name(owner)) is not None:
                    found.append(("backward_reached", name))
            elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
                if value.func.id == "print" and output:
                    for arg in value.args:
                        if isinstance(arg, ast.Name | ast.Attribute):
                            found.append(("shown", ast.unparse(arg)))
            elif output and isinstance(value, ast.Name | ast.Attribute | ast.Subscript):
                found.append(("shown", ast.unparse(value)))
    return found


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _literal(text: str) -> str:
    """A TOML multi-line literal string (a basic one if the text holds ''')."""
    if "'''" in text:
        return '"""\n' + text.replace("\\", "\\\\").replace('"""', '\\"""') + '\n"""'
    return "'''\n" + text + "\n'''"


def draft_lesson(text: str, *, path: str = "<transcript>", title: str | None = None) -> str:
    """The TOML text of a lesson drafted from transcript `text` (see the module doc)."""
    groups = _groups(text, path)
    lines = text.split("\n")
    setup = ""
    first = groups[0].examples
    if first[0].source.strip() == "import torch" and not first[0].want:
        setup = "import torch"  # every lesson's setup: not a step of its own
        first.pop(0)
        if not first:
            prose = groups.pop(0).prose
            if groups:
                groups[0].prose[:0] = prose
    if not groups:
        raise DraftError(f"{path}: nothing but `import torch` to teach")
    name = title or (groups[0].prose[0] if groups[0].prose else Path(path).stem)
    out = [
        "format = 1",
        f"setup = {_string(setup)}" if setup else 'setup = "import torch"',
        "",
        f"title.en = {_string(name)}",
        f"title.zh = {_string('TODO：' + name)}",
        'summary.en = "TODO: what this lesson teaches, shown when it opens."',
        'summary.zh = "TODO：这一课讲什么（打开课程时显示）。"',
    ]
    used: set[str] = set()
    for n, group in enumerate(groups, 1):
        step_title = group.prose[0] if group.prose else f"Step {n}"
        step_id = slug(step_title)
        while step_id in used:
            step_id = f"{step_id}-{n}"
        used.add(step_id)
        start = group.examples[0].line
        end = group.examples[-1].want_end
        solution = "\n".join(lines[start - 1 : end - 1]).rstrip("\n")
        codes = [ex.source for ex in group.examples]
        checks: list[tuple[str, str]] = []
        for ex in group.examples:
            for check in _checks_for(ex):
                if check not in checks:
                    checks.append(check)
        if not checks:
            raise DraftError(
                f"{path}, line {start}: nothing in this group of statements can be checked "
                "(assign a variable, call backward(), or show a value)"
            )
        text_en = " ".join(group.prose[1:]) or "TODO: explain the idea of this step."
        shown_codes = [f"`{c}`" for c in codes if "\n" not in c] or ["`...`"]
        answer = ", ".join(shown_codes)
        out += [
            "",
            "[[steps]]",
            f"id = {_string(step_id)}",
            f"title.en = {_string(step_title)}",
            f"title.zh = {_string('TODO：' + step_title)}",
            f"text.en = {_string(text_en)}",
            'text.zh = "TODO：讲解这一步的概念。"',
            'task.en = "TODO: say what to type, e.g. ' + answer.replace('"', '\\"') + '."',
            'task.zh = "TODO：说明要输入什么。"',
            "hints.en = [",
            '    "TODO: a first nudge.",',
            f"    {_string(answer)},",
            "]",
            "hints.zh = [",
            '    "TODO：第一条提示。",',
            f"    {_string('、'.join(shown_codes))},",
            "]",
            f"solution = {_literal(solution)}",
        ]
        for kind, subject in checks:
            out += ["[[steps.checks]]", f"{kind} = {_string(subject)}"]
    return "\n".join(out) + "\n"


def next_lesson_path(folder: Path, stem: str, numbers: list[int]) -> Path:
    """Where a new lesson goes: `NN-slug.toml` with the number after the course's last."""
    number = max(numbers, default=0) + 1
    return folder / f"{number:02d}-{slug(stem)}.toml"


__all__ = ["DraftError", "draft_lesson", "next_lesson_path", "slug"]
