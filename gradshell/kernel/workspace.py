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


__all__ = [
    "WORKSPACE_NAME",
    "WorkspaceError",
    "default_workspace",
    "prepare_workspace",
    "private_temp_dir",
]
