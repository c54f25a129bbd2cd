"""The builtins learner code sees: an allow-list of Python's, plus safe stand-ins.

Left out: everything that reaches the OS or the interpreter (`eval`, `exec`,
`compile`, `__import__`, `globals`, `breakpoint`, ...). `open` opens files within the
session's directories only (`learner_files`).
Stand-ins: `type` (one argument only), `format` and `pow` (size limits), `hasattr`,
`getattr`, `setattr`, `delattr` and `dir` (the same checks as `obj.name`), `input`
(the session's `read_input`), `exit`/`quit`.
"""

from __future__ import annotations

import builtins
from typing import Any

from gradshell.shell import guards, learner_files, limits, policy, unpacking
from gradshell.shell.attr_dict import object_dict
from gradshell.shell.errors import Refused, SessionExit
from gradshell.shell.formatting import safe_format

_PLAIN = """
abs all any ascii bin bool callable chr classmethod complex dict divmod enumerate filter
float frozenset hash hex id int isinstance issubclass iter len list map max min next
object oct ord print property range repr reversed round set slice sorted staticmethod
str sum super tuple zip type NotImplemented Ellipsis True False None
""".split()


def _exception_names() -> list[str]:
    out = []
    for name in dir(builtins):
        value = getattr(builtins, name)
        if isinstance(value, type) and issubclass(value, Exception) and not name.startswith("_"):
            out.append(name)
    # `except KeyboardInterrupt:` is how a training loop stops early on Ctrl-C; the time
    # limit raises its own exception, and a kernel that ignores Ctrl-C is stopped anyway.
    out.append("KeyboardInterrupt")
    return out


def _one_arg_type(*args: Any) -> type:
    """`type(obj)`: the class of `obj` (the three-argument form is not offered)."""
    if len(args) != 1:
        raise Refused("type() with three arguments is not available here (use a class statement)")
    return type(args[0])


def safe_pow(base: Any, exp: Any, mod: Any = None) -> Any:
    """`pow()` with the integer size limit."""
    if mod is None:
        limits.check_pow(base, exp)
        return pow(base, exp)
    return pow(base, exp, mod)


def safe_hasattr(obj: Any, name: str, /) -> bool:
    """`hasattr()`, answering False for names learner code may not read."""
    if not isinstance(name, str):
        raise TypeError("hasattr(): attribute name must be string")
    if not guards.readable(obj, name):
        return False
    return hasattr(obj, name)


_NO_DEFAULT = object()


def safe_getattr(obj: Any, name: str, default: Any = _NO_DEFAULT, /) -> Any:
    """`getattr()`: the same checks as `obj.name`."""
    if not isinstance(name, str):
        raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")
    try:
        return guards.ga(obj, name)
    except AttributeError:
        if default is _NO_DEFAULT:
            raise
        return default


def safe_setattr(obj: Any, name: str, value: Any, /) -> None:
    """`setattr()`: the same checks as `obj.name = value`."""
    if not isinstance(name, str):
        raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")
    if name.startswith("__"):
        raise Refused(f"setting attribute '{name}' is not available here")
    setattr(guards.Target(obj), name, value)


def safe_delattr(obj: Any, name: str, /) -> None:
    """`delattr()`: the same checks as `del obj.name`."""
    if not isinstance(name, str):
        raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")
    if name.startswith("__"):
        raise Refused(f"deleting attribute '{name}' is not available here")
    delattr(guards.Target(obj), name)


def make_input(session: Any) -> Any:
    """The `input()` builtin of `session`: it asks the session's `read_input`."""

    def input(prompt: Any = "", /) -> str:  # noqa: A001 - the learner-facing name
        """Read a line (the prompt is shown first); EOFError at the end of input."""
        read = getattr(session, "read_input", None)
        if read is None:
            raise EOFError("EOF when reading a line")
        with limits.paused_time_limit():
            return read(str(prompt))

    return policy.expose(input)


class _Exit:
    """`exit` / `quit`: calling it ends the session."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Use {self.name}() or Ctrl-D (i.e. EOF) to exit"

    def __call__(self, code: Any = None) -> None:
        raise SessionExit(0 if code is None else code if isinstance(code, int) else 1)


policy.CALLABLE_TYPES.add(_Exit)


def make_dir(namespace: dict[str, Any]) -> Any:
    """The `dir()` builtin of a session: its variables, or an object's usable names."""

    def dir(*args: Any) -> list[str]:  # noqa: A001 - the learner-facing name
        """dir([object]) -> the names you can use (of the session, or of `object`)."""
        if not args:
            return sorted(k for k in namespace if not k.startswith("_") or k == "_")
        if len(args) > 1:
            raise TypeError(f"dir expected at most 1 argument, got {len(args)}")
        obj = args[0]
        names = set(policy.safe_dir(obj))
        for name in _replaced_names(obj):
            names.add(name)
        return sorted(names)

    return policy.expose(dir)


def safe_vars(*args: Any) -> Any:
    """vars(object) -> the object's attribute dict, as `object.__dict__` gives it (the
    learner's own objects, torch's objects, plain records); the session's variables are
    `dir()`'s."""
    if len(args) != 1:
        if not args:
            raise Refused(
                "'vars()' without an argument is not available here (dir() lists your variables)"
            )
        raise TypeError(f"vars expected at most 1 argument, got {len(args)}")
    try:
        return object_dict(args[0], guards._describe)
    except AttributeError:
        raise TypeError("vars() argument must have __dict__ attribute") from None


def _replaced_names(obj: Any) -> list[str]:
    tp = obj if isinstance(obj, type) else type(obj)
    return [name for (cls, name) in guards.REPLACEMENTS if cls is tp]


def base_builtins() -> dict[str, Any]:
    """A fresh builtins dict for a safe session (without the session-bound entries)."""
    table: dict[str, Any] = {}
    for name in _PLAIN + _exception_names():
        table[name] = getattr(builtins, name)
    table["format"] = safe_format
    table["pow"] = policy.expose(safe_pow)
    table["vars"] = policy.expose(safe_vars)
    table["open"] = policy.expose(learner_files.safe_open)
    learner_files.register_file_types()
    table["hasattr"] = policy.expose(safe_hasattr)
    table["getattr"] = policy.expose(safe_getattr)
    table["setattr"] = policy.expose(safe_setattr)
    table["delattr"] = policy.expose(safe_delattr)
    from gradshell.shell.help import make_help

    table["help"] = make_help(lambda text: print(text, end=""))
    table["exit"] = _Exit("exit")
    table["quit"] = _Exit("quit")
    table["__build_class__"] = builtins.__build_class__
    # C code (numpy's lazy imports, PyImport_Import) finds `__import__` in the builtins of
    # the running frame; learner code itself cannot name it.
    table["__import__"] = builtins.__import__
    table.update(guards.GUARD_NAMES)
    for name, value in table.items():
        if not name.startswith("__") and callable(value) and not isinstance(value, type):
            policy.expose(value)
    return table


def _checked_iter(*args: Any) -> Any:
    """`iter(obj)`, or `iter(callable, sentinel)` with the callable checked as a call."""
    if len(args) == 2:
        return iter(guards.c(args[0]), args[1])
    return iter(*args)


guards.substitute_call(type, _one_arg_type)
for _constructor in (list, tuple, set, frozenset, sorted):
    guards.substitute_call(_constructor, unpacking.sized_constructor(_constructor))
# Builtins that call what they are handed: those callables are checked as learner calls.
guards.check_calls_of(map, (0,))
guards.check_calls_of(filter, (0,))
guards.check_calls_of(sorted, (), ("key",))
guards.check_calls_of(max, (), ("key",))
guards.check_calls_of(min, (), ("key",))
guards.substitute_call(iter, _checked_iter)
guards.check_calls_of(property, (0, 1, 2), ("fget", "fset", "fdel"))


def _install_input(session: Any) -> None:
    """Give a new safe session its `input` builtin (a session hook)."""
    if getattr(session, "unsafe", False):
        return
    table = session.namespace.get("__builtins__")
    if isinstance(table, dict):
        table["input"] = make_input(session)


def _register_input_hook() -> None:
    from gradshell.shell import session as session_module

    session_module.register_session_hook(_install_input)


_register_input_hook()
