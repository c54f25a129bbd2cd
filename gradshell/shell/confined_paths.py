"""Paths learner code may ask about: those within the session's directories.

`os.path`, `pathlib`, `glob` and `open` answer only there; elsewhere a path reads as
absent, or its use raises PermissionError in words a learner understands.
"""

from __future__ import annotations

import errno
import os
from typing import Any


def session_roots() -> list[Any] | None:
    """The directories learner code's files live in (None: no session policy here)."""
    from gradshell.torch import serialization

    return getattr(serialization.file_opener, "roots", None)


def outside(path: Any) -> bool:
    """Whether `path` lies outside the session's directories (so learner code may not
    learn whether it exists, how large it is, or what it holds)."""
    from gradshell.shell.files import within_roots

    roots = session_roots()
    if roots is None or not isinstance(path, str | os.PathLike):
        return False
    try:
        return not within_roots(path, roots)
    except (OSError, ValueError):
        return True


def refuse_outside(path: Any) -> None:
    """Raise the PermissionError for a path outside the session's directories."""
    from gradshell.torch import serialization

    session_dir = getattr(serialization.file_opener, "session_dir", "the session directory")
    raise PermissionError(
        errno.EACCES,
        f"{path} is outside the session directory ({session_dir}); "
        "start gradshell with --allow-path DIR to use another directory",
    )
