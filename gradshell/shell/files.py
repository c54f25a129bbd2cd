"""Files a session's magics read and write, confined to the session directory.

`%save`, `%load` and `%graph --dot/--svg` name paths typed by the learner (or by a
transcript someone sent). They go through a `FileService`: `LocalFiles` checks each
path against a `PathPolicy` (the session directory, by default the directory the
shell was started in, plus any `--allow-path DIR`) and does the I/O itself. Inside
the sandboxed kernel the session's service is a remote one that asks the front end,
which holds the same policy and is the only process allowed to touch those files.
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


class FileAccessError(Exception):
    """A path outside the allowed directories, or an I/O error, in words for a learner."""


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
        if it lies inside an allowed directory; FileAccessError otherwise."""
        return self.locate(path)[0]

    def locate(self, path: str) -> tuple[Path, Path]:
        """`resolve(path)` and the allowed directory it lies in."""
        if not path or "\0" in path:
            raise FileAccessError("a file name is needed")
        raw = Path(path).expanduser()
        target = (raw if raw.is_absolute() else self.session_dir / raw).resolve()
        for root in self.roots():
            if target == root or root in target.parents:
                return target, root
        raise FileAccessError(
            f"{path}: outside the session directory ({self.session_dir}); "
            "start gradshell with --allow-path DIR to use another directory"
        )

    def to_dict(self) -> dict[str, object]:
        """Plain data for the kernel's start message."""
        return {"session_dir": str(self.session_dir), "allowed": [str(p) for p in self.allowed]}


class FileService(Protocol):
    """What magics may do with files."""

    def read_text(self, path: str) -> str:
        """The text of `path`."""
        ...

    def write_text(self, path: str, text: str) -> str:
        """Write `text` to `path`; returns the path as the learner should see it."""
        ...

    def write_svg(self, path: str, dot_text: str) -> str:
        """Render DOT text to an SVG file with Graphviz; returns the path shown."""
        ...

    def show_graph(self, dot_text: str) -> None:
        """Let a front end that shows pictures draw this graph (others ignore it)."""
        ...


GRAPHVIZ_MISSING = "Graphviz's dot is not installed"

#: The largest file `%load` reads (a learner's program, not a data set).
MAX_READ_BYTES = 16 * 1024 * 1024


def open_beneath(root: Path, target: Path, flags: int, mode: int = 0o644) -> int:
    """A file descriptor for `target` (symlink-free, inside `root`), opened one directory
    at a time without following any symlink below `root`.

    Code in the kernel may share the session directory with the front end: a directory
    it swaps for a symlink between the front end's check and its open would otherwise
    lead the front end's read or write out of the session directory."""
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    parts = target.relative_to(root).parts
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


class LocalFiles:
    """A FileService doing its own I/O under a PathPolicy (the trusted side's)."""

    def __init__(self, policy: PathPolicy) -> None:
        self.policy = policy

    def read_text(self, path: str) -> str:
        """The text of `path` (UTF-8): a regular file of at most MAX_READ_BYTES."""
        target, root = self.policy.locate(path)
        try:
            fd = open_beneath(root, target, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            return _read_regular(fd, MAX_READ_BYTES).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise FileAccessError(f"cannot read {path}: {_reason(exc)}") from None

    def write_text(self, path: str, text: str) -> str:
        """Write `text` to `path` (UTF-8)."""
        target, root = self.policy.locate(path)
        try:
            fd = open_beneath(root, target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            raise FileAccessError(f"cannot write {path}: {_reason(exc)}") from None
        return path

    def write_svg(self, path: str, dot_text: str) -> str:
        """Render with Graphviz's `dot` into `path`."""
        target = self.policy.resolve(path)
        run_dot(["-Tsvg", "-o", os.fspath(target)], dot_text)
        return path

    def show_graph(self, dot_text: str) -> None:
        """A terminal shows the graph as text only."""


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
    """How learner code's `torch.save`/`torch.load` open a path: relative paths are in
    the writable directory (a file to read that is not there is looked for in the session
    directory too); any path must lie in the writable directory or under the policy's
    directories, else PermissionError in words a learner understands."""
    roots = [writable.resolve(), *policy.roots()]

    def opener(path: str, mode: str) -> BinaryIO:
        raw = Path(path).expanduser()
        if raw.is_absolute():
            candidates = [raw]
        elif "r" in mode:
            candidates = [writable / raw, policy.session_dir / raw]
        else:
            candidates = [writable / raw]
        for target in candidates:
            resolved = target.resolve()
            if not any(resolved == root or root in resolved.parents for root in roots):
                raise PermissionError(
                    errno.EACCES,
                    f"{path} is outside the session directory ({policy.session_dir}); "
                    "start gradshell with --allow-path DIR to use another directory",
                )
            if "r" in mode and not resolved.exists() and target is not candidates[-1]:
                continue
            return open(resolved, mode)  # noqa: SIM115 - the caller closes it
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)

    opener.roots = roots  # type: ignore[attr-defined] - what os.path's questions may see
    opener.session_dir = policy.session_dir  # type: ignore[attr-defined]
    return opener


def within_roots(path: str | os.PathLike[str], roots: Iterable[Path]) -> bool:
    """Whether `path` (relative to the working directory) lies in one of `roots`."""
    target = Path(os.path.abspath(os.fspath(path))).resolve()
    return any(target == root or root in target.parents for root in roots)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


__all__ = [
    "GRAPHVIZ_MISSING",
    "MAX_READ_BYTES",
    "FileAccessError",
    "FileService",
    "LocalFiles",
    "PathPolicy",
    "make_opener",
    "open_beneath",
    "within_roots",
    "render_svg",
]
