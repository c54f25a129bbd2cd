"""Size guards for `*` and `**` unpacking in checked learner code.

One starred value is checked by the length it announces (`star`). Several in one
display or call are checked together: `[*x, *x]` is twice as long as `x`, and each half
alone would pass. The transformer gives each such display or call a site number and
wraps its unpackings in `stars` (`*`) or `double_stars` (`**`), which keep a running
total per site and frame while Python evaluates the items one after another, in its own
order and with its own errors (the value itself is handed back, never copied). A
learner object is never asked its length: its `__len__` could answer differently when
Python sizes the result.
"""

from __future__ import annotations

import sys
from typing import Any

from gradshell.shell import limits, policy

#: (id of the evaluating frame, site) -> the items counted so far in that display.
_TOTALS: dict[tuple[int, int], int] = {}

#: Entries beyond this many are left by displays an exception cut short: dropped.
_MAX_TOTALS = 10_000


def _is_learner_object(value: Any) -> bool:
    return any(policy.is_learner_class(cls) for cls in type(value).__mro__)


def _each(value: Any) -> Any:
    yield from value


def star(value: Any) -> Any:
    """`*value` in a call or a display (`[*range(10**9)]`): its announced length is
    checked first. A learner object is read through a plain iterator, so that its
    `__len__` is never what Python sizes the result by."""
    if _is_learner_object(value):
        return _each(value)
    limits.check_iterable(value)
    return value


def _count(frame: Any, site: int, index: int, count: int, plain: int, n: int, what: str) -> None:
    """Add `n` to the running total of the display at `site` in `frame` (its `plain`
    items included at the first unpacking) and refuse a total over the limit."""
    key = (id(frame), site)
    total = (plain if index == 0 else _TOTALS.pop(key, plain)) + n
    limits.check_length(total, what)
    if index < count - 1:
        if len(_TOTALS) >= _MAX_TOTALS:
            _TOTALS.clear()
        _TOTALS[key] = total


def stars(value: Any, site: int, index: int, count: int, plain: int) -> Any:
    """`*value` as unpacking `index` of `count` in one display or call that also has
    `plain` single items (`[a, *x, *y]`): the total so far is checked. Returns what
    Python then unpacks."""
    frame = sys._getframe(1)  # the learner's frame: recursion gets a total of its own
    if _is_learner_object(value):
        _count(frame, site, index, count, plain, 0, "this sequence")
        return _each(value)
    _count(frame, site, index, count, plain, limits.announced_length(value), "this sequence")
    return value


def double_stars(value: Any, site: int, index: int, count: int, plain: int) -> Any:
    """`**value` as unpacking `index` of `count` in one dict display or call that also
    has `plain` single entries or keywords (`{**a, **b}`): the total so far is checked.
    Returns `value` unchanged (a learner mapping counts as empty)."""
    n = 0 if _is_learner_object(value) else limits.announced_length(value)
    _count(sys._getframe(1), site, index, count, plain, n, "this dict")
    return value


def sized_constructor(constructor: Any) -> Any:
    """`constructor(iterable)` (list, tuple, set, sorted...) with the length the iterable
    announces checked first; a learner object is read through a plain iterator."""

    def make(*args: Any, **kwargs: Any) -> Any:
        if args:
            if _is_learner_object(args[0]):
                args = (_each(args[0]), *args[1:])
            else:
                limits.check_iterable(args[0])
        return constructor(*args, **kwargs)

    make.__name__ = getattr(constructor, "__name__", "make")
    make.__doc__ = constructor.__doc__
    return make
