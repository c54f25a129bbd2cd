"""Where a sandboxed kernel may write: its workspace, and a private temporary folder.

Learner code writes only in its workspace: `gradshell-files/` under the session directory
by default (so a tutorial's `torch.save(model, "model.pt")` lands beside the learner's
own files, where they can find it), or the folder named with `--workdir DIR`. Never the
session directory's top level, which is often the learner's home with its start-up files.
Beside it each kernel gets a private temporary folder (`TMPDIR`, removed when the session
ends), where the quiet re-run after a restart writes instead of the workspace.

The front end makes both before the kernel starts, and refuses a workspace that is not a
plain folder (a symbolic link planted by earlier learner code, say).
"""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

#: The workspace's name under the session directory.
WORKSPACE_NAME = "gradshell-files"


class WorkspaceError(RuntimeError):
    """The workspace cannot be made or is not a plain folder."""


def default_workspace(session_dir: Path) -> Path | None:
    """`gradshell-files/` under the session directory, or None when the session
    directory cannot be written (a read-only checkout, `/`)."""
    target = session_dir / WORKSPACE_NAME
    if target.is_dir() or os.access(session_dir, os.W_OK):
        return target
    return None


def prepare_workspace(path: Path) -> Path:
    """Make `path` (and its parents) if missing, and check it is a plain folder; its
    absolute form. WorkspaceError, in a learner's words, otherwise."""
    path = Path(os.path.abspath(path.expanduser()))
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = os.lstat(path)
    except OSError as exc:
        raise WorkspaceError(f"cannot make the workspace {path}: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise WorkspaceError(f"the workspace {path} is not a folder (a link or a file is there)")
    return path


def private_temp_dir() -> Path:
    """A new folder only this user can enter, for one kernel session's temporary files."""
    folder = Path(tempfile.mkdtemp(prefix="gradshell-kernel-"))
    folder.chmod(0o700)
    return folder


#: The workspace's default caps: what its files may hold together, and how many there may be.
MAX_WORKSPACE_BYTES = 2 * 1024**3
MAX_WORKSPACE_FILES = 10_000

#: Every execute bit: files learner code wrote are data, never programs.
_EXEC_BITS = stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH


@dataclass
class SweepReport:
    """What a sweep of the workspace found and did."""

    total_bytes: int = 0
    files: int = 0
    made_plain: list[Path] = field(default_factory=list)  # execute bits taken away
    removed: list[Path] = field(default_factory=list)  # new files past the caps

    def words(self, workspace: Path, max_bytes: int, max_files: int) -> str:
        """The learner's explanation of what was removed (empty when nothing was)."""
        if not self.removed:
            return ""
        names = ", ".join(str(p.relative_to(workspace)) for p in self.removed[:5])
        more = f" and {len(self.removed) - 5} more" if len(self.removed) > 5 else ""
        return (
            f"gradshell: your workspace may hold {_size(max_bytes)} in {max_files:,} files "
            f"at most; the files this input wrote past that were removed: {names}{more}\n"
        )


def sweep(
    workspace: Path,
    since: float,
    max_bytes: int = MAX_WORKSPACE_BYTES,
    max_files: int = MAX_WORKSPACE_FILES,
) -> SweepReport:
    """After an input: take execute bits off every file in the workspace, and when the
    workspace is past its caps, remove the files changed since `since` (newest first)
    until it is within them again. Links are never followed."""
    report = SweepReport()
    recent: list[tuple[float, int, Path]] = []
    for folder, _dirs, names in os.walk(workspace):
        for name in names:
            path = Path(folder, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            report.files += 1
            if not stat.S_ISREG(info.st_mode):
                continue
            report.total_bytes += info.st_size
            if info.st_mode & _EXEC_BITS:
                try:
                    os.chmod(path, stat.S_IMODE(info.st_mode) & ~_EXEC_BITS)
                    report.made_plain.append(path)
                except OSError:
                    pass
            if info.st_mtime >= since:
                recent.append((info.st_mtime, info.st_size, path))
        if report.files > 4 * max_files:  # a flood: what is counted already is enough
            break
    recent.sort(reverse=True)
    while (report.total_bytes > max_bytes or report.files > max_files) and recent:
        _, size, path = recent.pop(0)
        try:
            path.unlink()
        except OSError:
            continue
        report.total_bytes -= size
        report.files -= 1
        report.removed.append(path)
    return report


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= scale:
            return f"{n / scale:g} {unit}"
    return f"{n} bytes"


__all__ = [
    "MAX_WORKSPACE_BYTES",
    "MAX_WORKSPACE_FILES",
    "SweepReport",
    "sweep",
    "WORKSPACE_NAME",
    "WorkspaceError",
    "default_workspace",
    "prepare_workspace",
    "private_temp_dir",
]
