"""Standard-library modules that only compute, as learner code imports them.

`pprint`, `re`, `textwrap`, `heapq`, `bisect`, `statistics`, `operator`, `enum`, `abc`,
`numbers`, `contextlib`, `datetime` and `weakref` are offered like `math`: each builder
returns the names the module offers, and registers the allow-lists of the objects those
names hand out. What is left out, and why:

* functions that call what they are handed get it checked as a learner call first
  (`heapq.nlargest(key=...)`, `re.sub(repl=f)`, `operator.attrgetter`);
* results whose size the input does not bound are checked first (`re.sub`,
  `textwrap.indent`, `statistics.quantiles(n=...)`), as `str.replace` is;
* `operator`'s arithmetic is the shell's own size-checked arithmetic;
* `weakref.finalize` and `weakref.ref`'s callback (they would run at unpredictable
  times) and `contextlib`'s stream redirections are not offered.
"""

from __future__ import annotations

import abc
import bisect
import contextlib
import datetime
import enum
import heapq
import numbers
import operator
import pprint
import re
import statistics
import textwrap
import weakref
from collections.abc import Callable
from typing import Any

from gradshell.shell import guards, limits, policy
from gradshell.shell.errors import Refused


def _pick(module: Any, names: str) -> dict[str, Any]:
    return {n: getattr(module, n) for n in names.split() if hasattr(module, n)}


def _public(cls: type) -> frozenset[str]:
    return frozenset(n for n in dir(cls) if not n.startswith("_"))


def _allow(cls: type, names: frozenset[str] | None = None) -> None:
    """Let learner code use `names` (default: every public name) of library class `cls`."""
    policy.allow_attributes(cls, _public(cls) if names is None else names)


# --- pprint ------------------------------------------------------------------------


def _pprint() -> dict[str, Any]:
    _allow(pprint.PrettyPrinter, frozenset({"pprint", "pformat", "isreadable", "isrecursive"}))
    policy.clear_caches()
    return _pick(pprint, "pprint pformat pp isreadable isrecursive saferepr PrettyPrinter")


# --- re ----------------------------------------------------------------------------


def _checked_repl(repl: Any) -> Any:
    """A replacement function checked as a learner call, whose results together must
    stay within the length limit."""
    fn = guards.c(repl)
    total = [0]

    def call(match: Any) -> Any:
        out = fn(match)
        if isinstance(out, str | bytes):
            total[0] += len(out)
            limits.check_length(total[0], "this substitution's result")
        return out

    return call


def _sub_bound(pattern: Any, repl: Any, string: Any, count: int, flags: int) -> int:
    """The most characters `re.sub` can produce: the string, plus each match's
    replacement (whose group references together copy at most the string)."""
    compiled = re.compile(pattern, flags) if not isinstance(pattern, re.Pattern) else pattern
    matches = 0
    for _ in compiled.finditer(string):
        matches += 1
        if count and matches >= count:
            break
    refs = repl.count(b"\\" if isinstance(repl, bytes) else "\\")  # each \\1, \\g<x>
    return len(string) * (1 + refs) + matches * len(repl)


def _sub(fn_name: str) -> Callable[..., Any]:
    real = getattr(re, fn_name)

    def sub(pattern: Any, repl: Any, string: Any, count: int = 0, flags: int = 0) -> Any:
        if callable(repl):
            repl = _checked_repl(repl)
        elif isinstance(repl, str | bytes) and isinstance(string, str | bytes):
            limits.check_length(_sub_bound(pattern, repl, string, count, flags))
        return real(pattern, repl, string, count=count, flags=flags)

    sub.__name__ = fn_name
    sub.__doc__ = real.__doc__
    return sub


def _pattern_sub(name: str) -> Callable[[Any], Any]:
    def bound(pat: re.Pattern) -> Any:
        real = getattr(pat, name)

        def sub(repl: Any, string: Any, count: int = 0) -> Any:
            if callable(repl):
                repl = _checked_repl(repl)
            elif isinstance(repl, str | bytes) and isinstance(string, str | bytes):
                limits.check_length(_sub_bound(pat, repl, string, count, 0))
            return real(repl, string, count)

        return policy.expose(sub)

    return bound


def _re() -> dict[str, Any]:
    _allow(
        re.Pattern,
        frozenset(
            """search match fullmatch split findall finditer pattern flags groups
            groupindex""".split()
        ),
    )
    _allow(
        re.Match,
        frozenset(
            "group groups groupdict start end span string re pos endpos lastindex lastgroup".split()
        ),
    )
    policy.EXTRA_GETITEM.add(re.Match)
    for name in ("sub", "subn"):
        guards.register_replacement(re.Pattern, name, _pattern_sub(name))
    policy.clear_caches()
    exports = _pick(
        re,
        """compile search match fullmatch split findall finditer escape purge error
        A ASCII I IGNORECASE M MULTILINE S DOTALL X VERBOSE U UNICODE NOFLAG""",
    )
    exports.update(sub=_sub("sub"), subn=_sub("subn"))
    return exports


# --- textwrap ----------------------------------------------------------------------


def _indent(text: str, prefix: str, predicate: Any = None) -> str:
    """`textwrap.indent`: `prefix` before each line of `text` (where `predicate` says)."""
    if isinstance(text, str) and isinstance(prefix, str):
        limits.check_length(len(text) + (text.count("\n") + 1) * len(prefix))
    if predicate is not None:
        predicate = guards.c(predicate)
    return textwrap.indent(text, prefix, predicate)


def _wrapping(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`wrap`/`fill`/`shorten` with the indents' share of the result checked first."""

    def call(text: Any, width: int = 70, **kwargs: Any) -> Any:
        extra = sum(len(kwargs.get(k) or "") for k in ("initial_indent", "subsequent_indent"))
        extra += len(kwargs.get("placeholder") or "")
        if isinstance(text, str) and extra:
            limits.check_length(len(text) * (1 + extra))
        return fn(text, width, **kwargs)

    call.__name__ = fn.__name__
    call.__doc__ = fn.__doc__
    return call


def _textwrap() -> dict[str, Any]:
    return {
        "dedent": textwrap.dedent,
        "indent": _indent,
        "wrap": _wrapping(textwrap.wrap),
        "fill": _wrapping(textwrap.fill),
        "shorten": _wrapping(textwrap.shorten),
    }


# --- heapq, bisect -----------------------------------------------------------------


def _heapq() -> dict[str, Any]:
    for fn in (heapq.nlargest, heapq.nsmallest):
        guards.check_calls_of(fn, (), ("key",))
    guards.check_calls_of(heapq.merge, (), ("key",))
    return _pick(heapq, "heappush heappop heapify heappushpop heapreplace nlargest nsmallest merge")


def _bisect() -> dict[str, Any]:
    for name in ("bisect", "bisect_left", "bisect_right", "insort", "insort_left", "insort_right"):
        guards.check_calls_of(getattr(bisect, name), (), ("key",))
    return _pick(bisect, "bisect bisect_left bisect_right insort insort_left insort_right")


# --- statistics --------------------------------------------------------------------


def _quantiles(data: Any, *, n: int = 4, method: str = "exclusive") -> list[Any]:
    """`statistics.quantiles`: `n - 1` cut points dividing `data` into `n` intervals."""
    if isinstance(n, int):
        limits.check_length(n)
    return statistics.quantiles(data, n=n, method=method)


def _statistics() -> dict[str, Any]:
    _allow(
        statistics.NormalDist,
        frozenset(
            """mean median mode stdev variance pdf cdf inv_cdf overlap zscore
            from_samples""".split()
        ),
    )
    policy.EXTRA_CONSTRUCTORS.add(statistics.NormalDist)
    policy.clear_caches()
    exports = _pick(
        statistics,
        """mean fmean geometric_mean harmonic_mean median median_low median_high
        median_grouped mode multimode pstdev pvariance stdev variance correlation
        covariance linear_regression NormalDist StatisticsError""",
    )
    exports["quantiles"] = _quantiles
    return exports


# --- operator ----------------------------------------------------------------------


class _Getter:
    """`operator.itemgetter` / `attrgetter` / `methodcaller`, reading through the guards."""

    __slots__ = ("kind", "items", "args", "kwargs")

    def __init__(self, kind: str, items: tuple, args: tuple = (), kwargs: Any = None) -> None:
        self.kind = kind
        self.items = items
        self.args = args
        self.kwargs = kwargs or {}
        if kind != "item" and not all(isinstance(i, str) for i in items):
            raise TypeError("attribute name must be a string")

    def _one(self, obj: Any, item: Any) -> Any:
        if self.kind == "item":
            return guards.gi(obj, item)
        if self.kind == "method":
            return guards.m(obj, item)(*self.args, **self.kwargs)
        for part in item.split("."):
            obj = guards.ga(obj, part)
        return obj

    def __call__(self, obj: Any) -> Any:
        if len(self.items) == 1:
            return self._one(obj, self.items[0])
        return tuple(self._one(obj, i) for i in self.items)

    def __repr__(self) -> str:
        name = {"item": "itemgetter", "attr": "attrgetter", "method": "methodcaller"}[self.kind]
        return f"operator.{name}({', '.join(map(repr, self.items + self.args))})"


def _itemgetter(*items: Any) -> _Getter:
    """`operator.itemgetter(*items)`: a function returning `obj[item]` (a tuple for many)."""
    return _Getter("item", items)


def _attrgetter(*attrs: str) -> _Getter:
    """`operator.attrgetter(*attrs)`: a function returning `obj.attr` (dotted names too)."""
    return _Getter("attr", attrs)


def _methodcaller(name: str, /, *args: Any, **kwargs: Any) -> _Getter:
    """`operator.methodcaller(name, *args)`: a function calling `obj.name(*args)`."""
    return _Getter("method", (name,), args, kwargs)


def _setitem(obj: Any, key: Any, value: Any) -> None:
    """`operator.setitem(obj, key, value)`: `obj[key] = value`."""
    guards.Target(obj)[key] = value


def _delitem(obj: Any, key: Any) -> None:
    """`operator.delitem(obj, key)`: `del obj[key]`."""
    del guards.Target(obj)[key]


def _operator() -> dict[str, Any]:
    policy.CALLABLE_TYPES.add(_Getter)
    exports = _pick(
        operator,
        """neg pos abs invert inv not_ truth is_ is_not eq ne lt le gt ge contains countOf
        indexOf index""",
    )
    # the shell's own arithmetic: the same size checks as `a * b` in learner code
    guarded = {
        "add": guards.add,
        "sub": guards.sub,
        "mul": guards.mul,
        "matmul": guards.matmul,
        "truediv": guards.truediv,
        "floordiv": guards.floordiv,
        "mod": guards.mod,
        "pow": guards.pow_,
        "lshift": guards.lshift,
        "rshift": guards.rshift,
        "and_": guards.and_,
        "or_": guards.or_,
        "xor": guards.xor,
        "concat": guards.add,
        "iadd": guards.iadd,
        "isub": guards.isub,
        "imul": guards.imul,
        "itruediv": guards.itruediv,
        "getitem": guards.gi,
        "setitem": _setitem,
        "delitem": _delitem,
        "itemgetter": _itemgetter,
        "attrgetter": _attrgetter,
        "methodcaller": _methodcaller,
    }
    exports.update(guarded)
    return exports


# --- enum, abc, numbers --------------------------------------------------------------


def _enum() -> dict[str, Any]:
    bases = [enum.Enum, enum.IntEnum, enum.Flag, enum.IntFlag]
    if hasattr(enum, "StrEnum"):
        bases.append(enum.StrEnum)
    policy.EXTRA_BASES.update(bases)
    for cls in bases:
        policy.EXTRA_ATTRS[cls] = frozenset({"name", "value"})
    policy.clear_caches()
    return _pick(enum, "Enum IntEnum Flag IntFlag StrEnum auto unique")


def _abc() -> dict[str, Any]:
    policy.EXTRA_BASES.add(abc.ABC)
    policy.EXTRA_ATTRS[abc.ABC] = frozenset()
    return _pick(abc, "ABC abstractmethod")


def _numbers() -> dict[str, Any]:
    return _pick(numbers, "Number Complex Real Rational Integral")


# --- contextlib ----------------------------------------------------------------------


def _contextmanager(func: Any) -> Any:
    """`contextlib.contextmanager`: a generator function as a `with` block's manager."""
    made = contextlib.contextmanager(guards.c(func))
    return policy.expose(made)


class _Suppress(contextlib.suppress):
    """`contextlib.suppress(*exceptions)`: only exceptions (never the time limit)."""

    def __init__(self, *exceptions: Any) -> None:
        for exc in exceptions:
            if not (isinstance(exc, type) and issubclass(exc, Exception)):
                raise Refused(
                    f"contextlib.suppress of {exc!r} is not available here (it takes "
                    "Exception classes only)"
                )
        super().__init__(*exceptions)


_Suppress.__module__ = "contextlib"
_Suppress.__name__ = _Suppress.__qualname__ = "suppress"


def _contextlib() -> dict[str, Any]:
    cm_type = contextlib._GeneratorContextManager
    guards.CONTEXT_TYPES.update({cm_type, contextlib.nullcontext, _Suppress})
    return {
        "contextmanager": _contextmanager,
        "suppress": _Suppress,
        "nullcontext": contextlib.nullcontext,
    }


# --- datetime, weakref -------------------------------------------------------------------


def _datetime() -> dict[str, Any]:
    for cls in (datetime.date, datetime.datetime, datetime.time, datetime.timedelta):
        _allow(cls)
    _allow(datetime.timezone, frozenset({"utc", "min", "max", "utcoffset", "tzname", "dst"}))
    policy.clear_caches()
    return _pick(datetime, "date datetime time timedelta timezone MINYEAR MAXYEAR")


def _weakref() -> dict[str, Any]:
    mapping = policy.BUILTIN_ATTRS[dict] - {"fromkeys"}
    for cls in (weakref.WeakKeyDictionary, weakref.WeakValueDictionary):
        _allow(cls, mapping)
    _allow(weakref.WeakSet, frozenset("add clear copy discard pop remove update".split()))
    policy.EXTRA_GETITEM.update({weakref.WeakKeyDictionary, weakref.WeakValueDictionary})
    policy.EXTRA_SETITEM.update({weakref.WeakKeyDictionary, weakref.WeakValueDictionary})
    policy.CALLABLE_TYPES.add(weakref.ref)
    policy.clear_caches()
    exports = _pick(weakref, "WeakKeyDictionary WeakValueDictionary WeakSet")
    exports["ref"] = _ref
    return exports


def _ref(obj: Any, callback: Any = None, /) -> weakref.ref:
    """`weakref.ref(obj)`: a reference that does not keep `obj` alive; calling it gives
    `obj`, or None once `obj` is gone."""
    if callback is not None:
        raise Refused(
            "weakref.ref's callback is not available here (it would run at unpredictable times)"
        )
    return weakref.ref(obj)


#: Module name -> the builder of its exports.
BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "pprint": _pprint,
    "re": _re,
    "textwrap": _textwrap,
    "heapq": _heapq,
    "bisect": _bisect,
    "statistics": _statistics,
    "operator": _operator,
    "enum": _enum,
    "abc": _abc,
    "numbers": _numbers,
    "contextlib": _contextlib,
    "datetime": _datetime,
    "weakref": _weakref,
}
