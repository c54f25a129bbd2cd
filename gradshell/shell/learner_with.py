"""A learner class as a `with` statement's context manager.

Learner classes may define `__enter__` and `__exit__`; Python calls them as it would.
Only one thing differs: the shell's own stops (the time limit, `exit()`, Ctrl-C) are not
exceptions a learner program can see. Python would hand them to `__exit__`, which could
swallow them (by returning True) or keep their class to catch them later; here they end
the block without calling `__exit__`, as they end the statement.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any


class LearnerContext:
    """Stands for a learner object in `with obj:` (see the module's docstring)."""

    __slots__ = ("_obj", "_exit")

    def __init__(self, obj: Any) -> None:
        tp = type(obj)
        # Python looks both up on the class before entering, with this message.
        if not hasattr(tp, "__enter__"):
            raise TypeError(f"'{tp.__name__}' object does not support the context manager protocol")
        if not hasattr(tp, "__exit__"):
            raise TypeError(
                f"'{tp.__name__}' object does not support the context manager protocol "
                "(missed __exit__ method)"
            )
        self._obj = obj
        self._exit = tp.__exit__

    def __enter__(self) -> Any:
        return type(self._obj).__enter__(self._obj)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        if kind is not None and not issubclass(kind, Exception):
            return False  # the shell's stop: neither shown to nor swallowed by the block
        return bool(self._exit(self._obj, kind, value, tb))


def defines_exit(tp: type, is_learner_class: Any) -> bool:
    """True if the `__exit__` Python would call for `tp` is a learner class's."""
    for cls in tp.__mro__:
        if "__exit__" in cls.__dict__:
            return bool(is_learner_class(cls))
    return False
