"""Python's "Did you mean: 'x'?" for a NameError in learner code.

Python 3.12's traceback module computes it; on 3.11 only the interpreter's own error
printer does, which the shell does not use. This is CPython's algorithm
(Python/suggestions.c): the closest name by a Levenshtein distance in which a change of
case costs 1 and any other edit 2, looked for among the frame's locals, then its
globals, then its builtins, among at most 750 names, never the shell's own.
"""

from __future__ import annotations

from types import FrameType, TracebackType

_MAX_CANDIDATES = 750
_MAX_STRING = 40
_MOVE_COST = 2
_CASE_COST = 1


def _substitution_cost(a: str, b: str) -> int:
    if a == b:
        return 0
    if a.lower() == b.lower():
        return _CASE_COST
    return _MOVE_COST


def _distance(a: str, b: str, max_cost: int) -> int:
    """CPython's levenshtein_distance: common ends stripped, capped at `max_cost + 1`."""
    if a == b:
        return 0
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    a, b = a[start:], b[start:]
    while a and b and a[-1] == b[-1]:
        a, b = a[:-1], b[:-1]
    if not a or not b:
        return (len(a) + len(b)) * _MOVE_COST
    if len(a) > _MAX_STRING or len(b) > _MAX_STRING:
        return max_cost + 1
    if len(b) < len(a):
        a, b = b, a
    if (len(b) - len(a)) * _MOVE_COST > max_cost:
        return max_cost + 1
    row = [(i + 1) * _MOVE_COST for i in range(len(a))]
    result = 0
    for bindex, bchar in enumerate(b):
        distance = result = bindex * _MOVE_COST
        minimum = None
        for index, achar in enumerate(a):
            substitute = distance + _substitution_cost(bchar, achar)
            distance = row[index]
            insert_delete = min(result, distance) + _MOVE_COST
            result = min(insert_delete, substitute)
            row[index] = result
            minimum = result if minimum is None else min(minimum, result)
        if minimum is not None and minimum > max_cost:
            return max_cost + 1
    return result


def _closest(candidates: list[str], name: str) -> str | None:
    if len(candidates) >= _MAX_CANDIDATES or len(name) > _MAX_STRING:
        return None
    best, best_distance = None, None
    for item in candidates:
        if item == name or item.startswith(("_gs", "__gs")):
            continue
        max_distance = (len(name) + len(item) + 3) * _MOVE_COST // 6
        if best_distance is not None:
            max_distance = min(max_distance, best_distance - 1)
        distance = _distance(name, item, max_distance)
        if distance > max_distance:
            continue
        if best is None or distance < best_distance:
            best, best_distance = item, distance
    return best


def _last_frame(tb: TracebackType | None) -> FrameType | None:
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame


def name_error_suggestion(exc: BaseException) -> str | None:
    """The name Python would suggest for a NameError `exc` (None: none)."""
    name = getattr(exc, "name", None)
    frame = _last_frame(exc.__traceback__)
    if not isinstance(exc, NameError) or not isinstance(name, str) or frame is None:
        return None
    for scope in (frame.f_locals, frame.f_globals, frame.f_builtins):
        found = _closest([k for k in scope if isinstance(k, str)], name)
        if found is not None:
            return found
    return None
