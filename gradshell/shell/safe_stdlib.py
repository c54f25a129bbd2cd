"""The harmless standard library, as `import os`, `import sys`, ... give it to learner code.

Each builder returns the names one module offers: what tutorials use, and nothing that
starts programs, changes files or reaches the interpreter. `os` offers its path functions,
`sep`, `getcwd`, `listdir` and a copy of `environ` (never `system`, `exec*`, `fork`,
`kill`, `remove`); `sys` offers `version`, `argv`, a copy of `path`, `stdout`/`stderr`
(write and flush) and `exit`. Classes these modules hand out (deques, counters,
partials, cached functions, dataclass fields, typing aliases) get their allow-lists here.
"""

from __future__ import annotations

import argparse
import collections
import collections.abc
import copy
import dataclasses
import functools
import itertools
import json
import os
import string
import sys
import time
import typing
import unicodedata
import warnings
from collections.abc import Callable
from typing import Any

from gradshell.shell import (
    guards,
    learner_files,
    learner_threads,
    policy,
    safe_stdlib_compute,
    unpacking,
)
from gradshell.shell.confined_paths import outside, refuse_outside
from gradshell.shell.errors import Refused, SessionExit

#: What each module's refusal adds after "'os.system' is not available here".
NOTES = {
    "os": " (gradshell's os offers os.path, os.sep, os.getcwd, os.listdir and a copy of "
    "os.environ; programs, processes and file changes are not available)",
    "string": " (gradshell's string offers its constants and capwords)",
    "sys": " (gradshell's sys offers sys.version, sys.argv, sys.path, sys.stdout, "
    "sys.stderr and sys.exit)",
}


def _pick(module: Any, names: str) -> dict[str, Any]:
    return {n: getattr(module, n) for n in names.split() if hasattr(module, n)}


# --- os ----------------------------------------------------------------------------


def _answer_within(question: Callable[..., Any], refuse: bool) -> Callable[..., Any]:
    """`os.path.exists` and friends answering only inside the session's directories:
    outside them a path reads as absent (or, for `refuse`, raises PermissionError), as
    the sandbox would show it — the operating system lets anyone ask a file's size."""

    def answer(path: Any, *args: Any, **kwargs: Any) -> Any:
        if outside(path):
            if refuse:
                refuse_outside(path)
            return False
        return question(path, *args, **kwargs)

    answer.__name__ = question.__name__
    answer.__doc__ = question.__doc__
    return answer


def _listdir(path: Any = ".") -> list[str]:
    """`os.listdir`: the names in a directory of the session."""
    if outside(path):
        refuse_outside(path)
    return os.listdir(path)


#: The environment variables learner code sees (a copy): locale, terminal and the
#: numeric libraries' settings tutorials read; never the host's tokens and keys.
_ENVIRON_NAMES = frozenset(
    """HOME USER LOGNAME LANG LANGUAGE TERM COLUMNS LINES PATH SHELL PWD TMPDIR TZ
    PYTHONHASHSEED CUDA_VISIBLE_DEVICES KMP_DUPLICATE_LIB_OK""".split()
)
_ENVIRON_PREFIXES = ("LC_", "OMP_", "MKL_", "OPENBLAS_", "GRADSHELL_")


def _learner_environ() -> dict[str, str]:
    return {
        name: value
        for name, value in os.environ.items()
        if name in _ENVIRON_NAMES or name.startswith(_ENVIRON_PREFIXES)
    }


def _os() -> dict[str, Any]:
    from gradshell.shell.safe_modules import SafeModule

    path = _pick(
        os.path,
        """join isabs basename dirname split splitext abspath normpath relpath expanduser
        commonpath commonprefix sep""",
    )
    for name in ("exists", "isfile", "isdir"):
        path[name] = _answer_within(getattr(os.path, name), refuse=False)
    path["getsize"] = _answer_within(os.path.getsize, refuse=True)
    exports = _pick(os, "sep pathsep linesep curdir pardir extsep name getcwd cpu_count")
    exports["listdir"] = _listdir
    exports["path"] = SafeModule("os.path", _expose(path), NOTES["os"], os.path)
    exports["environ"] = _learner_environ()  # a copy: setting a variable changes nothing
    return exports


# --- sys ---------------------------------------------------------------------------


class _Stream:
    """`sys.stdout` / `sys.stderr` for learner code: `write` and `flush` reach whatever
    the session is capturing into at the time of the call."""

    def __init__(self, name: str) -> None:
        if name not in ("stdout", "stderr"):
            raise ValueError("a stream is 'stdout' or 'stderr'")
        self.name = name

    def write(self, text: str) -> int:
        """Write `text` (a str); returns its length."""
        return getattr(sys, self.name).write(text)

    def flush(self) -> None:
        """Flush the stream."""
        getattr(sys, self.name).flush()

    def isatty(self) -> bool:
        """False: learner output is captured."""
        return False

    def __repr__(self) -> str:
        return f"<_io.TextIOWrapper name='<{self.name}>' mode='w' encoding='utf-8'>"


policy.OPEN_TYPES.add(_Stream)
for _method in (_Stream.write, _Stream.flush, _Stream.isatty):
    policy.expose(_method)


def _allow_methods(cls: type, names: Any) -> None:
    """Let learner code call the Python-level methods `names` of a library class."""
    for name in names:
        value = cls.__dict__.get(name)
        if isinstance(value, classmethod | staticmethod):
            value = value.__func__
        if callable(value):
            policy.expose(value)


def _exit(status: Any = None, /) -> None:
    """`sys.exit([status])`: end the program (a message is printed to stderr, status 1)."""
    if status is None:
        raise SessionExit(0)
    if isinstance(status, int):
        raise SessionExit(status)
    print(status, file=sys.stderr)
    raise SessionExit(1)


#: `sys.argv` as learner code sees it: the script's name when a file runs (the session
#: sets it), never the shell's own command line
LEARNER_ARGV: list[str] = [""]


def _sys() -> dict[str, Any]:
    exports = _pick(
        sys,
        """version version_info platform byteorder maxsize float_info int_info hexversion
        implementation getrecursionlimit getdefaultencoding""",
    )
    exports.update(
        argv=LEARNER_ARGV,
        path=list(sys.path),
        stdout=_Stream("stdout"),
        stderr=_Stream("stderr"),
        exit=_exit,
    )
    for value in (sys.float_info, sys.int_info, sys.version_info):
        _struct_fields(type(value), value)
    policy.EXTRA_ATTRS[type(sys.implementation)] = frozenset({"name", "version", "cache_tag"})
    return exports


def _struct_fields(tp: type, sample: Any) -> None:
    """Allow the named fields of a struct sequence (sys.float_info, time.struct_time)."""
    fields = [n for n in dir(sample) if not n.startswith("_") and n not in ("count", "index")]
    policy.EXTRA_ATTRS[tp] = frozenset([*fields, "count", "index"])


# --- time --------------------------------------------------------------------------


def _time() -> dict[str, Any]:
    exports = _pick(
        time,
        """time time_ns perf_counter perf_counter_ns monotonic monotonic_ns process_time
        process_time_ns sleep strftime localtime gmtime ctime asctime mktime struct_time""",
    )
    _struct_fields(time.struct_time, time.localtime())
    return exports


# --- collections -------------------------------------------------------------------

_DICT = policy.BUILTIN_ATTRS[dict]
_DEQUE = frozenset(
    """append appendleft clear copy count extend extendleft index insert maxlen pop popleft
    remove reverse rotate""".split()
)


def namedtuple(typename: str, field_names: Any, *, rename: bool = False, defaults: Any = None):
    """`collections.namedtuple`: a tuple class with named fields (a learner class)."""
    cls = collections.namedtuple(
        typename, field_names, rename=rename, defaults=defaults, module="__main__"
    )
    _allow_methods(cls, ("_make", "_asdict", "_replace"))
    return policy.register_learner_class(cls)


def _collections() -> dict[str, Any]:
    from gradshell.shell.safe_modules import SafeModule

    policy.EXTRA_ATTRS.update(
        {
            collections.Counter: _DICT
            | {"most_common", "elements", "subtract", "total", "update", "copy"},
            collections.deque: _DEQUE,
        }
    )
    _allow_methods(collections.Counter, policy.EXTRA_ATTRS[collections.Counter])
    policy.EXTRA_GETITEM.update({collections.deque, collections.Counter})
    policy.EXTRA_SETITEM.update({collections.deque, collections.Counter})
    for tp in (collections.Counter, collections.deque):
        guards.substitute_call(tp, unpacking.sized_constructor(tp))
    guards.check_calls_of(collections.defaultdict, (0,), ("default_factory",))
    abc = _pick(
        collections.abc,
        """Iterable Iterator Sequence MutableSequence Mapping MutableMapping Set MutableSet
        Callable Sized Container Hashable Generator Collection""",
    )
    exports = _pick(collections, "OrderedDict defaultdict Counter deque")
    exports["namedtuple"] = namedtuple
    exports["abc"] = SafeModule("collections.abc", _expose(abc), "", collections.abc)
    policy.clear_caches()
    return exports


# --- itertools ---------------------------------------------------------------------


def _itertools() -> dict[str, Any]:
    exports = _pick(
        itertools,
        """count cycle repeat accumulate chain compress dropwhile filterfalse groupby
        islice pairwise starmap takewhile tee zip_longest product permutations combinations
        combinations_with_replacement batched""",
    )
    policy.EXTRA_ATTRS[itertools.chain] = frozenset({"from_iterable"})
    # They call what they are handed: each callable is checked as a learner call first.
    for tp in (itertools.starmap, itertools.filterfalse, itertools.dropwhile):
        guards.check_calls_of(tp, (0,))
    guards.check_calls_of(itertools.takewhile, (0,))
    guards.check_calls_of(itertools.accumulate, (1,), ("func",))
    guards.check_calls_of(itertools.groupby, (1,), ("key",))
    policy.clear_caches()
    return exports


# --- functools ---------------------------------------------------------------------


def lru_cache(maxsize: Any = 128, typed: bool = False) -> Any:
    """`functools.lru_cache`: remember a function's results (as a decorator)."""
    if callable(maxsize) and not isinstance(maxsize, bool):
        return functools.lru_cache(maxsize=128, typed=typed)(guards.c(maxsize))
    decorator = functools.lru_cache(maxsize=maxsize, typed=typed)
    return policy.expose(lambda user_function: decorator(guards.c(user_function)))


def cache(user_function: Callable[..., Any], /) -> Any:
    """`functools.cache`: remember every result of `user_function`."""
    return functools.lru_cache(maxsize=None)(guards.c(user_function))


def _functools() -> dict[str, Any]:
    cached_type = type(functools.lru_cache()(lambda: None))
    info_type = type(functools.lru_cache()(lambda: None).cache_info())
    policy.CALLABLE_TYPES.update({functools.partial, cached_type})
    policy.EXTRA_ATTRS.update(
        {
            functools.partial: frozenset({"func", "args", "keywords"}),
            cached_type: frozenset({"cache_info", "cache_clear", "cache_parameters"}),
        }
    )
    _struct_fields(info_type, functools.lru_cache()(lambda: None).cache_info())
    policy.clear_caches()
    # They call what they are handed: each callable is checked as a learner call first.
    guards.check_calls_of(functools.partial, (0,))
    guards.check_calls_of(functools.reduce, (0,))
    guards.check_calls_of(functools.cmp_to_key, (0,))
    exports = _pick(functools, "reduce partial cmp_to_key")
    exports.update(lru_cache=lru_cache, cache=cache)
    return exports


# --- dataclasses -------------------------------------------------------------------


def dataclass(cls: Any = None, /, **options: Any) -> Any:
    """`dataclasses.dataclass`: generate `__init__`, `__repr__` and `__eq__` from the
    class's annotated fields (with or without options)."""
    if cls is None:
        return policy.expose(lambda klass: _dataclass(klass, options))
    return _dataclass(cls, options)


def _dataclass(cls: Any, options: dict[str, Any]) -> Any:
    made = dataclasses.dataclass(cls, **options)
    if made is not cls and policy.is_learner_class(cls):
        # `slots=True` makes a new class from the learner's (checked) body: still theirs.
        policy.register_learner_class(made)
    return made


def _dataclasses() -> dict[str, Any]:
    policy.EXTRA_ATTRS[dataclasses.Field] = frozenset(
        "name type default default_factory init repr compare hash metadata kw_only".split()
    )
    policy.clear_caches()
    guards.check_calls_of(dataclasses.field, (), ("default_factory",))
    guards.check_calls_of(dataclasses.asdict, (), ("dict_factory",))
    guards.check_calls_of(dataclasses.astuple, (), ("tuple_factory",))
    exports = _pick(
        dataclasses, "field fields asdict astuple replace is_dataclass FrozenInstanceError"
    )
    exports["dataclass"] = dataclass
    return exports


# --- typing ------------------------------------------------------------------------


def _typing() -> dict[str, Any]:
    exports = _pick(
        typing,
        """Any List Dict Tuple Set FrozenSet Optional Union Callable Iterable Iterator
        Sequence Mapping Type Literal TypeVar cast Generator Final ClassVar
        TYPE_CHECKING""",
    )
    # `List[int]`, `Optional[Tensor]`, `Dict[str, List[int]]`: subscripting the forms and
    # the aliases they make is harmless.
    forms = exports
    samples = [forms["List"][int], forms["Optional"][int], forms["Callable"][[int], int]]
    samples += [forms["Tuple"][int, ...], forms["Literal"][1], forms["Dict"][str, int]]
    samples += [forms["Union"][int, str]]
    for value in [*exports.values(), *samples]:
        if not isinstance(value, type):
            policy.EXTRA_GETITEM.add(type(value))
    policy.clear_caches()
    return exports


# --- copy, warnings ----------------------------------------------------------------


def _copy() -> dict[str, Any]:
    return _pick(copy, "copy deepcopy")


def _warnings() -> dict[str, Any]:
    guards.CONTEXT_TYPES.add(warnings.catch_warnings)
    return _pick(warnings, "warn filterwarnings simplefilter resetwarnings catch_warnings")


def _string() -> dict[str, Any]:
    # the constants and capwords; Formatter and Template format with attribute lookups
    return _pick(
        string,
        """ascii_letters ascii_lowercase ascii_uppercase digits hexdigits octdigits
        punctuation printable whitespace capwords""",
    )


def _unicodedata() -> dict[str, Any]:
    return _pick(
        unicodedata,
        """normalize is_normalized category name lookup decimal digit numeric bidirectional
        combining east_asian_width mirrored decomposition unidata_version""",
    )


# --- argparse and json ----------------------------------------------------------------


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser as learner code gets it: it parses the learner's `sys.argv` (the
    script's, not the shell's), names the program after the script as Python does, ends
    the program as `sys.exit` does, and reads no argument files."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("fromfile_prefix_chars") is not None:
            raise Refused(
                "argparse's fromfile_prefix_chars (reading arguments from files) is not "
                "available here"
            )
        if not args and kwargs.get("prog") is None:
            kwargs["prog"] = os.path.basename(LEARNER_ARGV[0])
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """Parse `args` (the learner's command-line arguments when None)."""
        return super().parse_known_args(LEARNER_ARGV[1:] if args is None else args, namespace)

    def exit(self, status: int = 0, message: str | None = None) -> None:
        """End the learner's program (after `message` on stderr), as sys.exit does."""
        if message:
            sys.stderr.write(message)
        raise SessionExit(status)


ArgumentParser.__module__ = "argparse"
_PARSER_METHODS = """add_argument add_argument_group add_mutually_exclusive_group
    set_defaults get_default parse_args parse_known_args parse_intermixed_args
    parse_known_intermixed_args print_help print_usage format_help format_usage error exit
    add_subparsers""".split()


def _argparse() -> dict[str, Any]:
    allowed = frozenset([*_PARSER_METHODS, "add_parser", "prog", "description", "epilog"])
    for cls in (
        argparse._ActionsContainer,
        argparse.ArgumentParser,
        ArgumentParser,
        argparse._ArgumentGroup,
        argparse._MutuallyExclusiveGroup,
        argparse._SubParsersAction,
    ):
        policy.EXTRA_ATTRS[cls] = allowed
        _allow_methods(cls, allowed)
    policy.OPEN_TYPES.add(argparse.Namespace)
    exports = _pick(
        argparse,
        """Namespace Action BooleanOptionalAction HelpFormatter RawDescriptionHelpFormatter
        RawTextHelpFormatter ArgumentDefaultsHelpFormatter MetavarTypeHelpFormatter
        ArgumentError ArgumentTypeError SUPPRESS OPTIONAL ZERO_OR_MORE ONE_OR_MORE REMAINDER""",
    )
    exports["ArgumentParser"] = ArgumentParser
    return exports


def _json() -> dict[str, Any]:
    return _pick(json, "dumps loads dump load JSONDecodeError JSONEncoder JSONDecoder")


def _expose(exports: dict[str, Any]) -> dict[str, Any]:
    for value in exports.values():
        if callable(value):
            policy.expose(value)
    return exports


#: Module name -> the builder of its exports.
BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "os": _os,
    "sys": _sys,
    "time": _time,
    "collections": _collections,
    "itertools": _itertools,
    "functools": _functools,
    "dataclasses": _dataclasses,
    "typing": _typing,
    "copy": _copy,
    "warnings": _warnings,
    "string": _string,
    "unicodedata": _unicodedata,
    "argparse": _argparse,
    "json": _json,
}


# the threading, file and computing modules, each built in its own module
BUILDERS["threading"] = learner_threads.exports
BUILDERS.update(learner_files.BUILDERS)
BUILDERS.update(safe_stdlib_compute.BUILDERS)
