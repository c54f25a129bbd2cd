"""`Did you mean: 'print'?`: the suggestion Python adds to a misspelt name or attribute.

Python 3.12 prints it in every traceback (3.10 and 3.11 only at the bare interpreter's
top level, never through the `traceback` module), and misspellings are a beginner's most
common error, so the shell adds it on every Python it runs on, found by the rules
CPython uses: candidates are the names the failing frame could see (its locals, globals
and builtins — here the learner's namespace and the builtins the shell offers) or the
object's attributes; a candidate is near enough when its edit distance, counting a
change of case as half an edit, is within about a third of the two names' length; the
nearest wins, the first seen on a tie; nothing is offered past 750 candidates or for a
name over 40 characters. A NameError inside a method whose `self` has that attribute
suggests `self.NAME`; one naming a standard-library module asks whether it was imported.
"""

from __future__ import annotations

import sys
from types import TracebackType

#: CPython's limits: more candidates than this, or a longer name, get no suggestion.
MAX_CANDIDATES = 750
MAX_NAME = 40

#: The cost of inserting, deleting or replacing a character, and of changing its case.
EDIT = 2
CASE = 1


def _substitution(a: str, b: str) -> int:
    if a == b:
        return 0
    return CASE if a.lower() == b.lower() else EDIT


def edit_distance(a: str, b: str, most: int) -> int:
    """The weighted edit distance between `a` and `b`, or `most + 1` once it must be
    larger than `most` (the search stops early, as CPython's does)."""
    if a == b:
        return 0
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    a, b = a[start:], b[start:]
    end = 0
    while end < min(len(a), len(b)) and a[-1 - end] == b[-1 - end]:
        end += 1
    if end:
        a, b = a[:-end], b[:-end]
    if not a or not b:
        return EDIT * (len(a) + len(b))
    if len(a) > MAX_NAME or len(b) > MAX_NAME:
        return most + 1
    if len(b) < len(a):
        a, b = b, a
    if (len(b) - len(a)) * EDIT > most:
        return most + 1
    row = [EDIT * (i + 1) for i in range(len(a))]
    result = 0
    for b_index, b_char in enumerate(b):
        diagonal = result = b_index * EDIT
        lowest = sys.maxsize
        for index, a_char in enumerate(a):
            substitute = diagonal + _substitution(b_char, a_char)
            diagonal = row[index]
            result = min(min(result, diagonal) + EDIT, substitute)
            row[index] = result
            lowest = min(lowest, result)
        if lowest > most:
            return most + 1
    return result


def nearest(name: str, candidates: list[str]) -> str | None:
    """The candidate nearest to `name` within CPython's reach, or None."""
    if len(candidates) > MAX_CANDIDATES or len(name) > MAX_NAME:
        return None
    best, found = sys.maxsize, None
    for candidate in candidates:
        if candidate == name or not isinstance(candidate, str):
            continue
        if candidate.startswith(("_gs", "__gs")):  # the shell's own names, never offered
            continue
        most = min((len(candidate) + len(name) + 3) * EDIT // 6, best - 1)
        distance = edit_distance(name, candidate, most)
        if distance <= most and (found is None or distance < best):
            found, best = candidate, distance
    return found


def _innermost(tb: TracebackType | None) -> TracebackType | None:
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb


def suggestion(exc: BaseException) -> str:
    """What Python 3.12 adds after a NameError's or AttributeError's message (`. Did you
    mean: 'print'?`, `. Did you forget to import 'math'`), or ''."""
    name = getattr(exc, "name", None)
    if not isinstance(exc, NameError | AttributeError) or not isinstance(name, str):
        return ""
    found: str | None = None
    if isinstance(exc, AttributeError):
        try:
            found = nearest(name, list(dir(exc.obj)))
        except Exception:  # an object whose dir() fails: Python offers nothing either
            return ""
    else:
        tb = _innermost(exc.__traceback__)
        if tb is None:
            return ""
        frame = tb.tb_frame
        owner = frame.f_locals.get("self")
        try:
            if owner is not None and hasattr(owner, name):
                found = f"self.{name}"
        except Exception:
            pass
        if found is None:
            names = [*frame.f_locals, *frame.f_globals, *frame.f_builtins]
            found = nearest(name, names)
    text = f". Did you mean: '{found}'?" if found else ""
    if isinstance(exc, NameError) and name in sys.stdlib_module_names:
        text += f" Or did you forget to import '{name}'" if found else ""
        text += "" if found else f". Did you forget to import '{name}'"
    return text


def with_suggestion(last_line: str, exc: BaseException) -> str:
    """`last_line` ('NameError: name 'prnt' is not defined\\n') with Python's suggestion
    added, unless this Python added one already."""
    if "Did you mean" in last_line or "Did you forget" in last_line:
        return last_line
    extra = suggestion(exc)
    if not extra:
        return last_line
    body = last_line.rstrip("\n")
    return body + extra + last_line[len(body) :]


__all__ = ["edit_distance", "nearest", "suggestion", "with_suggestion"]
