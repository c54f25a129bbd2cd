"""Files in learner code: `open`, `pathlib`, `io`, `csv` and `glob`, within the session's
directories.

Tutorials write and read small files: a CSV of results, a text file of names, a folder
of checkpoints. `open` opens what `torch.save`/`torch.load` may open (the session's
directories, through the same opener), in text or binary mode; `pathlib.Path` answers
about, lists and changes files there only (a path outside reads as absent, as
`os.path.exists` answers); `glob` lists matches there only. File descriptors, `opener=`,
permissions, owners and links are not offered.
"""

from __future__ import annotations

import csv
import errno
import glob
import io
import os
import pathlib
from typing import Any

from gradshell.shell import guards, policy
from gradshell.shell.confined_paths import outside, refuse_outside
from gradshell.shell.errors import Refused

_MODE_CHARS = frozenset("rwaxbt+")


def _file_opener() -> Any:
    from gradshell.torch import serialization

    return serialization.file_opener


def safe_open(
    file: Any,
    mode: str = "r",
    buffering: int = -1,
    encoding: str | None = None,
    errors: str | None = None,
    newline: str | None = None,
    closefd: bool = True,
    opener: Any = None,
) -> Any:
    """open(file, mode='r', ...): a file in the session's directories (text or binary)."""
    if isinstance(file, int) and not isinstance(file, bool):
        raise Refused("opening a file descriptor is not available here (open a path)")
    if opener is not None or not closefd:
        raise Refused("open()'s opener= and closefd= are not available here")
    path = os.fspath(file)
    if not isinstance(mode, str):
        raise TypeError(f"open() argument 'mode' must be str, not {type(mode).__name__}")
    if not set(mode) <= _MODE_CHARS or len(set(mode)) != len(mode):
        raise ValueError(f"invalid mode: '{mode}'")
    binary = "b" in mode
    if binary and (encoding is not None or errors is not None or newline is not None):
        raise ValueError("binary mode doesn't take an encoding argument")
    raw = _file_opener()(path, mode.replace("t", "") + ("" if binary else "b"))
    if binary:
        return raw
    text = io.TextIOWrapper(raw, encoding=encoding or "utf-8", errors=errors, newline=newline)
    text.mode = mode
    return text


# --- pathlib ---------------------------------------------------------------------------


class Path(type(pathlib.Path())):  # type: ignore[misc] - PosixPath (or WindowsPath)
    """`pathlib.Path` for learner code: a path whose file operations stay within the
    session's directories (see the module's docstring)."""

    def _checked(self) -> None:
        if outside(self):
            refuse_outside(self)

    def open(
        self,
        mode: str = "r",
        buffering: int = -1,
        encoding: Any = None,
        errors: Any = None,
        newline: Any = None,
    ) -> Any:
        """Open the file, as the built-in `open` does."""
        return safe_open(self, mode, buffering, encoding, errors, newline)

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        """The file's status (a path outside the session's directories reads as absent)."""
        if outside(self):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(self))
        return super().stat(follow_symlinks=follow_symlinks)

    def lstat(self) -> os.stat_result:
        """The status of the path itself (a link is not followed)."""
        if outside(self):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(self))
        return super().lstat()

    def iterdir(self) -> Any:
        """The entries of this directory."""
        self._checked()
        return super().iterdir()

    def glob(self, pattern: str) -> Any:
        """The paths under this one matching `pattern`."""
        self._checked()
        return (p for p in super().glob(pattern) if not outside(p))

    def rglob(self, pattern: str) -> Any:
        """The paths at any depth under this one matching `pattern`."""
        self._checked()
        return (p for p in super().rglob(pattern) if not outside(p))

    def mkdir(self, mode: int = 0o777, parents: bool = False, exist_ok: bool = False) -> None:
        """Make this directory (with its parents when asked)."""
        self._checked()
        super().mkdir(mode, parents, exist_ok)

    def touch(self, mode: int = 0o666, exist_ok: bool = True) -> None:
        """Make the file if it is not there, else update its time."""
        self._checked()
        super().touch(mode, exist_ok)

    def unlink(self, missing_ok: bool = False) -> None:
        """Remove this file."""
        self._checked()
        super().unlink(missing_ok)

    def rmdir(self) -> None:
        """Remove this (empty) directory."""
        self._checked()
        super().rmdir()

    def rename(self, target: Any) -> Any:
        """Rename this file to `target`."""
        self._checked()
        if outside(target):
            refuse_outside(target)
        return super().rename(target)

    def replace(self, target: Any) -> Any:
        """Rename this file to `target`, replacing it if it is there."""
        self._checked()
        if outside(target):
            refuse_outside(target)
        return super().replace(target)


def _same_as_pathlib(name: str) -> Any:
    """pathlib's own method `name`, defined on the learner's Path: its file access goes
    through this class's confined `stat` and `open`, and the allow-list of pathlib's
    own classes stays that of pure paths."""
    base = getattr(pathlib.Path, name)

    def method(self: Path, *args: Any, **kwargs: Any) -> Any:
        return base(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = base.__doc__
    return method


for _name in """exists is_dir is_file is_symlink read_text read_bytes write_text write_bytes
    samefile absolute resolve expanduser""".split():
    setattr(Path, _name, _same_as_pathlib(_name))
Path.cwd = classmethod(lambda cls: cls(os.getcwd()))  # type: ignore[method-assign]
Path.home = classmethod(lambda cls: cls(os.path.expanduser("~")))  # type: ignore[method-assign]
Path.__module__ = "pathlib"
Path.__name__ = Path.__qualname__ = type(pathlib.Path()).__name__

#: What a path offers (never permissions, owners, links or raw file descriptors).
_PATH_LEFT_OUT = frozenset(
    "chmod lchmod symlink_to hardlink_to link_to owner group readlink is_mount".split()
)


def _pathlib() -> dict[str, Any]:
    names = frozenset(n for n in dir(Path) if not n.startswith("_")) - _PATH_LEFT_OUT
    pure = frozenset(n for n in dir(pathlib.PurePosixPath) if not n.startswith("_"))
    for cls in Path.__mro__[1:-1]:  # pathlib's classes: what pure paths offer
        policy.allow_attributes(cls, pure)
    policy.allow_attributes(
        Path, names
    )  # file access: only through this class's own, confined methods
    policy.EXTRA_CONSTRUCTORS.add(pathlib.PurePosixPath)
    # `path.stat().st_size` and friends: the named fields of the status record
    policy.EXTRA_ATTRS[os.stat_result] = frozenset(
        n for n in dir(os.stat_result) if n.startswith("st_")
    ) | {"count", "index"}
    policy.EXTRA_GETITEM.add(os.stat_result)
    policy.EXTRA_GETITEM.add(type(Path().parents))
    policy.clear_caches()
    return {
        "Path": Path,
        Path.__name__: Path,
        "PurePath": pathlib.PurePath,
        "PurePosixPath": pathlib.PurePosixPath,
    }


# --- io, csv, glob -------------------------------------------------------------------

_STREAM = frozenset(
    """read readline readlines write writelines close closed flush seek tell truncate
    readable writable seekable name mode encoding newlines""".split()
)


def register_file_types() -> None:
    """Let learner code use the file objects `open` returns (once)."""
    types_ = (io.TextIOWrapper, io.BufferedReader, io.BufferedWriter, io.BufferedRandom)
    for tp in types_:
        policy.allow_attributes(tp, _STREAM)
    guards.CONTEXT_TYPES.update(types_)
    policy.clear_caches()


def _io() -> dict[str, Any]:
    for tp in (io.StringIO, io.BytesIO):
        policy.allow_attributes(tp, _STREAM | {"getvalue"})
        guards.CONTEXT_TYPES.add(tp)
    policy.clear_caches()
    return {"StringIO": io.StringIO, "BytesIO": io.BytesIO}


def _csv() -> dict[str, Any]:
    reader, writer = type(csv.reader([])), type(csv.writer(io.StringIO()))
    policy.allow_attributes(reader, frozenset({"dialect", "line_num"}))
    policy.allow_attributes(writer, frozenset({"dialect", "writerow", "writerows"}))
    policy.allow_attributes(
        csv.DictReader,
        frozenset({"fieldnames", "line_num", "restkey", "restval", "dialect", "reader"}),
    )
    policy.allow_attributes(
        csv.DictWriter, frozenset({"fieldnames", "writeheader", "writerow", "writerows"})
    )
    policy.clear_caches()
    return {
        name: getattr(csv, name)
        for name in """reader writer DictReader DictWriter QUOTE_ALL QUOTE_MINIMAL
        QUOTE_NONE QUOTE_NONNUMERIC Error excel excel_tab unix_dialect Sniffer""".split()
        if name != "Sniffer"
    }


def _glob_pattern_outside(pattern: Any) -> bool:
    text = os.fspath(pattern)
    literal = text
    for i, ch in enumerate(text):
        if ch in "*?[":
            literal = text[:i]
            break
    return outside(os.path.dirname(literal) or ".")


def _glob(pattern: Any, *, recursive: bool = False) -> list[Any]:
    """`glob.glob(pattern)`: the matching paths within the session's directories."""
    if _glob_pattern_outside(pattern):
        return []
    return [p for p in glob.glob(pattern, recursive=recursive) if not outside(p)]


def _iglob(pattern: Any, *, recursive: bool = False) -> Any:
    """`glob.iglob(pattern)`: `glob.glob`'s matches, one at a time."""
    return iter(_glob(pattern, recursive=recursive))


def _globmod() -> dict[str, Any]:
    return {"glob": _glob, "iglob": _iglob, "escape": glob.escape}


#: Module name -> the builder of its exports.
BUILDERS = {"pathlib": _pathlib, "io": _io, "csv": _csv, "glob": _globmod}
