"""Where the REPL keeps its history: the user's data directory."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def data_dir() -> Path:
    """gradshell's per-user data directory (``$GRADSHELL_DATA_DIR`` overrides it).

    Linux: ``$XDG_DATA_HOME/gradshell`` (``~/.local/share/gradshell``); macOS:
    ``~/Library/Application Support/gradshell``; Windows: ``%APPDATA%\\gradshell``.
    """
    override = os.environ.get("GRADSHELL_DATA_DIR")
    if override:
        return Path(override).expanduser()
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / "gradshell"


def history_path() -> Path | None:
    """The history file, its folder created; None if it cannot be written."""
    folder = data_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    path = folder / "history"
    if path.exists() and not os.access(path, os.W_OK):
        return None
    if not path.exists() and not os.access(folder, os.W_OK):
        return None
    return path
