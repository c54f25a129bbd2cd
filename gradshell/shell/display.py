"""How a displayed value looks: Python's REPL (`repr`) or IPython's (`Out[n]: ...`).

IPython shows objects with a default repr as ``<module.Class at 0x…>`` (no word
`object`), classes as ``module.Class``, functions as ``<function module.f(args)>``, and
breaks containers that do not fit in 79 columns one item per line. An object can give
its own IPython form with a ``_repr_ipython_()`` method (the printers use it for
tensors and grad_fn nodes when the forms differ).
"""

from __future__ import annotations

import re
import types
from typing import Any

PROMPTS = ("python", "ipython", "jupyter")
"""How input and results look: Python's REPL, IPython's (`In [n]:`/`Out[n]:`), or
'jupyter': IPython's rules (the last expression is shown, in IPython's form) without the
`Out[n]:` prefix, which the notebook draws itself."""

MAX_WIDTH = 79
_DEFAULT_REPR = re.compile(r"^<(.+) object at (0x[0-9a-fA-F]+)>$", re.S)


def python_form(value: Any) -> str:
    """What Python's REPL prints for a displayed value (without the newline)."""
    return repr(value)


def ipython_out(value: Any, count: int) -> str:
    """IPython's ``Out[n]:`` line(s) for a displayed value, newline included."""
    text = ipython_form(value)
    if "\n" in text:
        return f"Out[{count}]: \n{text}\n"
    return f"Out[{count}]: {text}\n"


def _type_name(cls: type) -> str:
    mod = getattr(cls, "__module__", None)
    name = getattr(cls, "__qualname__", cls.__name__)
    if mod in (None, "builtins", "exceptions"):
        return name
    return f"{mod}.{name}"


def _single(value: Any) -> str:
    """IPython's form of one non-container object."""
    hook = getattr(type(value), "_repr_ipython_", None)
    if hook is not None and not isinstance(value, type):
        return str(hook(value))
    if isinstance(value, type):
        return _type_name(value)
    if isinstance(value, types.FunctionType):
        import inspect

        try:
            sig = str(inspect.signature(value))
        except (TypeError, ValueError):
            sig = "(...)"
        return f"<function {_type_name_of_function(value)}{sig}>"
    # IPython shows a repr line by line (so a trailing newline disappears).
    text = "\n".join(repr(value).splitlines())
    m = _DEFAULT_REPR.match(text)
    if m is not None:
        return f"<{m.group(1)} at {m.group(2)}>"
    return text


def _type_name_of_function(fn: types.FunctionType) -> str:
    mod = fn.__module__
    if mod in (None, "builtins"):
        return fn.__qualname__
    return f"{mod}.{fn.__qualname__}"


def _is_plain(value: Any, kind: type) -> bool:
    # Only the exact builtin containers, or subclasses that keep the builtin repr.
    return type(value).__repr__ is kind.__repr__


def ipython_form(value: Any, indent: int = 0, column: int = 0) -> str:
    """IPython's pretty form of `value`, starting at `column`, continuation at `indent`."""
    if isinstance(value, list) and _is_plain(value, list):
        return _seq("[", "]", list(value), indent, column, tuple_=False)
    if isinstance(value, tuple) and _is_plain(value, tuple):
        return _seq("(", ")", list(value), indent, column, tuple_=True)
    if isinstance(value, set | frozenset) and _is_plain(value, type(value)):
        items = _sorted(value)
        if not items:
            return f"{type(value).__name__}()"
        if type(value) is frozenset:
            return _seq("frozenset({", "})", items, indent, column, tuple_=False)
        return _seq("{", "}", items, indent, column, tuple_=False)
    if isinstance(value, dict) and _is_plain(value, dict):
        return _dict(value, indent, column)
    text = _single(value)
    if "\n" in text and indent:
        text = text.replace("\n", "\n" + " " * indent)
    return text


def _sorted(items: Any) -> list[Any]:
    try:
        return sorted(items)
    except Exception:
        return list(items)


def _flat(value: Any) -> str:
    return ipython_form(value, 0, 0)


def _seq(open_: str, close: str, items: list[Any], indent: int, column: int, tuple_: bool) -> str:
    parts = [_flat(x) for x in items]
    tail = "," if tuple_ and len(items) == 1 else ""
    flat = open_ + ", ".join(parts) + tail + close
    if "\n" not in flat and column + len(flat) <= MAX_WIDTH:
        return flat
    inner = indent + len(open_)
    rendered = [ipython_form(x, inner, inner) for x in items]
    sep = ",\n" + " " * inner
    return open_ + sep.join(rendered) + tail + close


def _dict(value: dict, indent: int, column: int) -> str:
    if not value:
        return "{}"
    pairs = [(_flat(k), v) for k, v in value.items()]
    flat = "{" + ", ".join(f"{k}: {_flat(v)}" for k, v in pairs) + "}"
    if "\n" not in flat and column + len(flat) <= MAX_WIDTH:
        return flat
    inner = indent + 1
    rendered = []
    for key, v in pairs:
        start = inner + len(key) + 2
        rendered.append(f"{key}: {ipython_form(v, start, start)}")
    return "{" + (",\n" + " " * inner).join(rendered) + "}"
