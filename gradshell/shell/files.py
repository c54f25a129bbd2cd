"""Files a session's magics read and write, confined to the session directory.

`%save`, `%load` and `%graph --dot/--svg` name paths typed by the learner (or by a
transcript someone sent). They go through a `FileService`: `LocalFiles` checks each
path against a `PathPolicy` (the session directory, by default the directory the
shell was started in, plus any `--allow-path DIR`) and does the I/O itself. Inside
the sandboxed kernel the session's service is a remote one that asks the front end,
which holds the same policy and is the only process allowed to touch those files.

The session directory is often the learner's home, so only what is gradshell's is
treated as gradshell's: hidden names (`.bashrc`, `.ssh/`, `.git/hooks/`) are off limits
for reading and writing, however the path reaches them (`..`, symlinks); an existing
file is written over only if gradshell wrote it in this session (`ledger`), or the
learner says so; and every file written is left non-executable. `make_opener` applies
the same rules to learner code's `torch.save` and `torch.load`.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Protocol

from gradshell.shell.ledger import WriteLedger


class FileAccessError(Exception):
    """A path outside the allowed directories, or an I/O error, in words for a learner."""


#: Why a hidden path is refused, in the words a learner sees.
HIDDEN = (
    "hidden files and folders (names starting with '.') are off limits to gradshell's file commands"
)

#: The widest mode of a file gradshell writes: never executable, never writable by others.
FILE_MODE = 0o644


def hidden_name(parts: Iterable[str]) -> str | None:
    """The first of `parts` (names below an allowed directory) that starts with '.'.

    A session directory is often the learner's home: its hidden names are the shell's
    start-up files, SSH keys, git hooks and tools' settings, never a learner's notes."""
    return next((part for part in parts if part.startswith(".")), None)


def deepest_root(target: Path, roots: Iterable[Path]) -> Path | None:
    """The innermost of `roots` that holds `target` (both absolute), or None.

    The innermost, so that a directory the learner allowed on purpose inside another
    (`--allow-path ~/.cache/course` with the home as session directory) is judged by
    the names below it."""
    found = [root for root in roots if target == root or root in target.parents]
    return max(found, key=lambda root: len(root.parts), default=None)


def is_hidden(joined: Path, target: Path, root: Path, roots: Iterable[Path]) -> bool:
    """Whether a path names something hidden: `target` (symlink-free, inside `root`) has
    a hidden name below `root`, or the path as written (`joined`, absolute, its `..`
    folded away) has one below the allowed directory it names."""
    if hidden_name(target.relative_to(root).parts):
        return True
    lexical = Path(os.path.normpath(joined))
    written_root = deepest_root(lexical, roots)
    return written_root is not None and hidden_name(lexical.relative_to(written_root).parts)


@dataclass
class PathPolicy:
    """Which directories a session's file magics may use."""

    session_dir: Path
    allowed: list[Path] = field(default_factory=list)

    @classmethod
    def here(cls, allowed: Iterable[str | Path] = ()) -> PathPolicy:
        """The policy of a shell started in the current directory."""
        return cls(Path.cwd().resolve(), [Path(p).expanduser().resolve() for p in allowed])

    def roots(self) -> list[Path]:
        """Every directory a path may lie in."""
        return [self.session_dir, *self.allowed]

    def resolve(self, path: str) -> Path:
        """The absolute, symlink-free form of `path` (relative to the session directory),
        if it lies inside an allowed directory and names nothing hidden; FileAccessError
        otherwise."""
        return self.locate(path)[0]

    def locate(self, path: str) -> tuple[Path, Path]:
        """`resolve(path)` and the allowed directory it lies in."""
        if not path or "\0" in path:
            raise FileAccessError("a file name is needed")
        raw = Path(path).expanduser()
        joined = raw if raw.is_absolute() else self.session_dir / raw
        target = joined.resolve()
        root = deepest_root(target, self.roots())
        if root is None:
            raise FileAccessError(
                f"{path}: outside the session directory ({self.session_dir}); "
                "start gradshell with --allow-path DIR to use another directory"
            )
        if is_hidden(joined, target, root, self.roots()):
            raise FileAccessError(f"{path}: {HIDDEN}")
        return target, root

    def to_dict(self) -> dict[str, object]:
        """Plain data for the kernel's start message."""
        return {"session_dir": str(self.session_dir), "allowed": [str(p) for p in self.allowed]}


class FileService(Protocol):
    """What magics may do with files."""

    def read_text(self, path: str) -> str:
        """The text of `path`."""
        ...

    def write_text(self, path: str, text: str, *, force: bool = False) -> str:
        """Write `text` to `path`; returns the path as the learner should see it. An
        existing file gradshell did not write in this session is overwritten only with
        `force` or the learner's yes."""
        ...

    def write_svg(self, path: str, dot_text: str, *, force: bool = False) -> str:
        """Render DOT text to an SVG file with Graphviz; returns the path shown."""
        ...

    def show_graph(self, dot_text: str) -> None:
        """Let a front end that shows pictures draw this graph (others ignore it)."""
        ...


GRAPHVIZ_MISSING = "Graphviz's dot is not installed"

#: The largest file `%load` reads (a learner's program, not a data set).
MAX_READ_BYTES = 16 * 1024 * 1024


def open_beneath(root: Path, target: Path, flags: int, mode: int = FILE_MODE) -> int:
    """A file descriptor for `target` (symlink-free, inside `root`), opened one directory
    at a time without following any symlink below `root`, and never through a hidden
    name.

    Code in the kernel may share the session directory with the front end: a directory
    it swaps for a symlink between the front end's check and its open would otherwise
    lead the front end's read or write out of the session directory."""
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    parts = target.relative_to(root).parts
    if hidden_name(parts):
        raise PermissionError(errno.EACCES, HIDDEN)
    if not parts:
        return os.open(root, flags, mode)
    directory = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        for part in parts[:-1]:
            step = os.open(
                part, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | nofollow, dir_fd=directory
            )
            os.close(directory)
            directory = step
        return os.open(parts[-1], flags | nofollow, mode, dir_fd=directory)
    finally:
        os.close(directory)


def _read_regular(fd: int, limit: int) -> bytes:
    """The bytes of the regular file open on `fd` (closed here), at most `limit`.

    Opened without blocking, then checked to be a regular file: a FIFO or device put in
    the session directory (by code in the kernel) must not stall the front end, nor a
    huge file fill its memory."""
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if info.st_size > limit:
            raise OSError(errno.EFBIG, f"the file is too large ({info.st_size:,} bytes)")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise OSError(errno.EFBIG, "the file is too large")
    return data


def check_overwritable(info: os.stat_result) -> None:
    """OSError unless the file `info` describes may be written over at all: a regular
    file with no other name. A hard link would carry the write to its other names
    (`notes.py` linked to `~/.bashrc`), whichever folder and name they have."""
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, "not a regular file")
    if info.st_nlink > 1:
        raise OSError(
            errno.EPERM,
            "the file has other names (hard links), and writing it would change them too",
        )


def narrow_mode(fd: int, info: os.stat_result) -> None:
    """Make the file open on `fd` no wider than FILE_MODE: a file gradshell writes over
    does not stay executable (nor set-user-id, nor writable by others)."""
    mode = stat.S_IMODE(info.st_mode)
    if mode & ~FILE_MODE:
        os.fchmod(fd, mode & FILE_MODE)


class LocalFiles:
    """A FileService doing its own I/O under a PathPolicy (the trusted side's).

    It writes new files freely, and writes over a file only if it wrote that file itself
    in this session and nobody changed it since (its `ledger`), if the caller passes
    `force` (the learner typed `--force`), or if `confirm` — a y/N question at the
    learner's terminal, when there is one — returns True."""

    def __init__(self, policy: PathPolicy, *, confirm: Callable[[str], bool] | None = None):
        self.policy = policy
        #: Asks the learner a yes/no question; None: nobody to ask (the answer is no).
        self.confirm = confirm
        self.ledger = WriteLedger()

    def read_text(self, path: str) -> str:
        """The text of `path` (UTF-8): a regular file of at most MAX_READ_BYTES."""
        target, root = self.policy.locate(path)
        try:
            fd = open_beneath(root, target, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            return _read_regular(fd, MAX_READ_BYTES).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise FileAccessError(f"cannot read {path}: {_reason(exc)}") from None

    def write_text(self, path: str, text: str, *, force: bool = False) -> str:
        """Write `text` to `path` (UTF-8)."""
        self._write(path, text.encode("utf-8"), force=force)
        return path

    def write_svg(self, path: str, dot_text: str, *, force: bool = False) -> str:
        """Render with Graphviz's `dot`, then write the SVG to `path` as any other file
        (Graphviz writing it itself would follow symlinks and keep an old file's mode)."""
        self.policy.locate(path)  # a refused path is refused before Graphviz runs
        self._write(path, render_svg(dot_text).encode("utf-8"), force=force)
        return path

    def show_graph(self, dot_text: str) -> None:
        """A terminal shows the graph as text only."""

    def _write(self, path: str, data: bytes, *, force: bool) -> None:
        target, root = self.policy.locate(path)
        try:
            fd = self._open_for_writing(path, target, root, force=force)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                self.ledger.record(target, os.fstat(f.fileno()))
        except OSError as exc:
            raise FileAccessError(f"cannot write {path}: {_reason(exc)}") from None

    def _open_for_writing(self, path: str, target: Path, root: Path, *, force: bool) -> int:
        """A descriptor to write `target` from its start: a new file, or an existing one
        that may be written over (checked on the very file that will be written)."""
        flags = os.O_WRONLY | getattr(os, "O_NONBLOCK", 0)  # a FIFO must not stall us
        try:
            return open_beneath(root, target, flags | os.O_CREAT | os.O_EXCL, FILE_MODE)
        except FileExistsError:
            pass
        fd = open_beneath(root, target, flags)
        try:
            info = os.fstat(fd)
            check_overwritable(info)
            if not (force or self.ledger.owns(target, info) or self._confirmed(path)):
                raise FileAccessError(
                    f"{path} exists and gradshell did not write it in this session, so it "
                    "was left as it is (add --force to the command to overwrite it)"
                )
            narrow_mode(fd, info)
            os.ftruncate(fd, 0)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _confirmed(self, path: str) -> bool:
        """The learner's answer to IPython's question, when someone can answer it."""
        if self.confirm is None:
            return False
        question = (
            f"File `{path}` exists and gradshell did not write it in this session. "
            "Overwrite (y/[N])? "
        )
        try:
            return bool(self.confirm(question))
        except (EOFError, KeyboardInterrupt):
            return False


def answered_yes(answer: str | None) -> bool:
    """Whether a line typed at a y/N question means yes (as IPython reads it)."""
    return answer is not None and answer.strip().lower() in ("y", "yes")


def render_svg(dot_text: str) -> str:
    """SVG drawn from DOT text by Graphviz's `dot`; FileAccessError if it is missing or fails."""
    svg = run_dot(["-Tsvg"], dot_text)
    if not svg.strip():
        raise FileAccessError("Graphviz's dot failed: it drew nothing")
    return svg


def run_dot(args: list[str], dot_text: str) -> str:
    """Run Graphviz's `dot` with `args` on DOT text; its output, or FileAccessError."""
    program = shutil.which("dot")
    if program is None:
        raise FileAccessError(GRAPHVIZ_MISSING)
    try:
        done = subprocess.run(
            [program, *args], input=dot_text, text=True, capture_output=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FileAccessError(f"Graphviz's dot failed: {exc}") from None
    if done.returncode != 0:
        raise FileAccessError(f"Graphviz's dot failed: {done.stderr.strip() or done.returncode}")
    return done.stdout


def make_opener(policy: PathPolicy, writable: Path) -> Callable[[str, str], BinaryIO]:
    """How learner code's `torch.save`/`torch.load` open a path.

    Relative paths are in the writable directory (a file to read that is not there is
    looked for in the session directory too). A file is read only from the writable
    directory or the policy's directories, and written only in the writable directory
    (the one the sandbox lets the kernel write in). Hidden names are neither read nor
    written, files are written with a mode no wider than FILE_MODE, and never through a
    symlink or a hard link. Anything else is a PermissionError in words a learner
    understands."""
    writable = writable.resolve()
    roots = [writable, *policy.roots()]

    def opener(path: str, mode: str) -> BinaryIO:
        if mode not in ("rb", "wb"):
            raise ValueError(f"gradshell opens files for torch as 'rb' or 'wb', not {mode!r}")
        writing = mode == "wb"
        raw = Path(path).expanduser()
        if raw.is_absolute():
            candidates = [raw]
        elif writing:
            candidates = [writable / raw]
        else:
            candidates = [writable / raw, policy.session_dir / raw]
        for target in candidates:
            resolved = target.resolve()
            root = deepest_root(resolved, [writable] if writing else roots)
            if root is None:
                raise PermissionError(errno.EACCES, _outside(path, policy, writable, resolved))
            if is_hidden(target, resolved, root, roots):
                raise PermissionError(errno.EACCES, f"{path}: {HIDDEN}")
            if not writing and not resolved.exists() and target is not candidates[-1]:
                continue
            return _open_binary(root, resolved, writing)
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)

    opener.roots = roots  # type: ignore[attr-defined] - what os.path's questions may see
    opener.session_dir = policy.session_dir  # type: ignore[attr-defined]
    return opener


def _outside(path: str, policy: PathPolicy, writable: Path, resolved: Path) -> str:
    """Why learner code may not open `path`, in words."""
    if deepest_root(resolved, policy.roots()) is not None:  # readable, not writable
        return f"{path}: your code saves files only in {writable}"
    return (
        f"{path} is outside the session directory ({policy.session_dir}); "
        "start gradshell with --allow-path DIR to use another directory"
    )


def _open_binary(root: Path, target: Path, writing: bool) -> BinaryIO:
    """`target` (symlink-free, inside `root`) open for reading, or for writing from its
    start with a mode no wider than FILE_MODE."""
    if not writing:
        return os.fdopen(open_beneath(root, target, os.O_RDONLY), "rb")
    fd = open_beneath(root, target, os.O_WRONLY | os.O_CREAT, FILE_MODE)
    try:
        info = os.fstat(fd)
        check_overwritable(info)
        narrow_mode(fd, info)
        os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "wb")


def typed_hidden(path: str | os.PathLike[str]) -> str | None:
    """The first hidden name in a path a command was given (`~` expanded, `.` and `..`
    folded away lexically), or in the name it finally resolves to; None if none.

    For commands outside a session (`gradshell learn --export FILE`), which have no
    allowed directory to measure from: any hidden name the learner's path passes
    through, or a symlink's hidden target, is refused."""
    written = Path(os.path.normpath(Path(path).expanduser()))
    found = hidden_name(p for p in written.parts if p not in (".", ".."))
    if found is None and Path(written).resolve().name.startswith("."):
        found = Path(written).resolve().name
    return found


def within_roots(path: str | os.PathLike[str], roots: Iterable[Path]) -> bool:
    """Whether `path` (relative to the working directory) lies in one of `roots`."""
    target = Path(os.path.abspath(os.fspath(path))).resolve()
    return any(target == root or root in target.parents for root in roots)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


__all__ = [
    "FILE_MODE",
    "GRAPHVIZ_MISSING",
    "HIDDEN",
    "MAX_READ_BYTES",
    "FileAccessError",
    "FileService",
    "LocalFiles",
    "PathPolicy",
    "answered_yes",
    "check_overwritable",
    "deepest_root",
    "hidden_name",
    "is_hidden",
    "make_opener",
    "narrow_mode",
    "open_beneath",
    "render_svg",
    "typed_hidden",
    "within_roots",
]
