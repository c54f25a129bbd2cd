"""String formatting without attribute walks: `str.format`, `format()`, f-strings, `%`.

`"{0.__class__}".format(x)` would read attributes inside the host's formatter, past
every guard. Here a replacement field's `.attr` and `[key]` parts go through the same
guards as learner code, and every width and precision is checked against the limit.
Format strings without such parts go straight to Python's own `str.format`, so its
results and error messages stay exactly Python's.
"""

from __future__ import annotations

import _string  # CPython's format-string parser (what `string.Formatter` uses)
import string
from typing import Any

from gradshell.shell import policy
from gradshell.shell.errors import Refused
from gradshell.shell.limits import check_format_spec


def _needs_guarded_path(fmt: str) -> bool:
    for _literal, field, spec, _conv in _string.formatter_parser(fmt):
        if field is None:
            continue
        if "." in field or "[" in field or (spec and "{" in spec):
            return True
        if spec:
            check_format_spec(spec)
    return False


class _GuardedFormatter(string.Formatter):
    """A `string.Formatter` whose field lookups go through the shell's guards."""

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> tuple[Any, Any]:
        first, rest = _string.formatter_field_name_split(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attr, key in rest:
            if is_attr:
                if not policy.attr_allowed(obj, key):
                    raise Refused(f"format field '{field_name}' is not available here")
                obj = getattr(obj, key)
            else:
                if not policy.getitem_allowed(obj):
                    raise Refused(f"format field '{field_name}' is not available here")
                obj = obj[key]
        return obj, first

    def format_field(self, value: Any, format_spec: str) -> str:
        check_format_spec(format_spec)
        return format(value, format_spec)


_FORMATTER = _GuardedFormatter()


def safe_str_format(fmt: str, /, *args: Any, **kwargs: Any) -> str:
    """`str.format` with guarded field lookups and width limits."""
    if type(fmt) is not str:
        if isinstance(fmt, str):
            fmt = str(fmt)
        else:
            raise TypeError(
                "descriptor 'format' for 'str' objects doesn't apply to a "
                f"'{type(fmt).__name__}' object"
            )
    if _needs_guarded_path(fmt):
        return _FORMATTER.vformat(fmt, args, kwargs)
    return fmt.format(*args, **kwargs)


class BoundFormat:
    """`some_string.format` as learner code sees it."""

    __slots__ = ("fmt",)

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt

    def __call__(self, *args: Any, **kwargs: Any) -> str:
        return safe_str_format(self.fmt, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<built-in method format of str object at {id(self.fmt):#x}>"


def safe_format(value: Any, format_spec: str = "") -> str:
    """The `format()` builtin with a width limit."""
    if isinstance(format_spec, str):
        check_format_spec(format_spec)
    return format(value, format_spec)


def fstring_field(value: Any, conversion: int, spec: str) -> str:
    """One `{value!conv:spec}` field of an f-string."""
    if conversion == 114:
        value = repr(value)
    elif conversion == 115:
        value = str(value)
    elif conversion == 97:
        value = ascii(value)
    check_format_spec(spec)
    return format(value, spec)


policy.CALLABLE_TYPES.add(BoundFormat)
policy.expose(safe_str_format)
policy.expose(safe_format)
