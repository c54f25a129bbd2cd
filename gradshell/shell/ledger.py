"""The files gradshell wrote in this session, so that it knows which files are its own.

`%save notes.py` twice in one session just writes twice: the second time the file is
still the one gradshell left. Any other existing file — one the learner made, one an
earlier session wrote and the learner may have edited since, one that changed after
gradshell wrote it — belongs to the learner, and gradshell overwrites it only when the
learner says so (a y/N question at a terminal, or `--force`).

The ledger lives in the front end's memory for one session and trusts nothing on disk:
a marker in a file (a header line, an extended attribute) could be forged by whoever
wrote the file, and would let a transcript someone sent overwrite it without asking.
A file is the ledger's only while its identity and last change are what gradshell left.
"""

from __future__ import annotations

import os
from pathlib import Path


def fingerprint(info: os.stat_result) -> tuple[int, int, int, int, int]:
    """What changes whenever anyone else writes, truncates, chmods or replaces a file:
    its device and inode (a new file at the same name differs), size, and modification
    and status-change times in nanoseconds."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


class WriteLedger:
    """The files this session's file commands wrote, as they left them."""

    def __init__(self) -> None:
        self._written: dict[Path, tuple[int, int, int, int, int]] = {}

    def record(self, path: Path, info: os.stat_result) -> None:
        """Note that gradshell just wrote `path` (resolved) and left it as `info` says."""
        self._written[path] = fingerprint(info)

    def owns(self, path: Path, info: os.stat_result) -> bool:
        """Whether `path` (resolved), now as `info` says, is still exactly what gradshell
        wrote there in this session."""
        return self._written.get(path) == fingerprint(info)

    def __len__(self) -> int:
        return len(self._written)


__all__ = ["WriteLedger", "fingerprint"]
