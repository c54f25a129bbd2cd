"""The visible part of a session directory: what the sandboxed kernel may read there.

A session directory is often the learner's home, where hidden names (`.ssh`, `.bashrc`,
`.git`, `.config`) hold keys, shell start-up files and other programs' settings. The kernel
reads the session directory's visible files and folders (a tutorial's `data/` or
`train.csv`) but no path with a hidden component, root or not. Landlock grants reading by
tree, so the grant is built from the tree itself: a folder with no hidden name anywhere
beneath it is granted whole, a folder with one is opened up and its visible entries granted
one by one, and hidden entries and symbolic links (which would grant their target) are never
granted. The walk is bounded: a folder still unchecked when the budget runs out is left out
(unreadable), and the caller is told how many.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

#: The most directory entries one walk looks at (a home directory's visible part is usually
#: far smaller; a huge one is cut short rather than slowing every kernel start).
WALK_BUDGET = 5_000


@dataclass
class VisibleTree:
    """The paths to grant for reading, and the folders left out unchecked."""

    paths: list[Path] = field(default_factory=list)
    unchecked: list[Path] = field(default_factory=list)


def is_hidden_name(name: str) -> bool:
    """A hidden file or folder's name: one that starts with a dot."""
    return name.startswith(".")


def visible_tree(root: Path, budget: int = WALK_BUDGET) -> VisibleTree:
    """The paths under `root` that together grant reading its visible part and nothing else.

    `root` itself is never granted as a whole when anything hidden lies beneath it; the
    result is then a list of its visible entries (folders whole where they hold nothing
    hidden). Entries that cannot be listed are granted whole only if they are files."""
    tree = VisibleTree()
    left = [budget]
    if _clean(root, left):
        tree.paths.append(root)
        return tree
    _open_up(root, tree, left)
    return tree


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as listing:
            return list(listing)
    except OSError:
        return []


def _clean(folder: Path, left: list[int]) -> bool:
    """Whether no hidden name lies anywhere beneath `folder` (False when the budget ends
    before the walk does: unchecked is not clean)."""
    pending = [folder]
    while pending:
        for entry in _entries(pending.pop()):
            left[0] -= 1
            if left[0] < 0 or is_hidden_name(entry.name):
                return False
            if entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
    return True


def _open_up(folder: Path, tree: VisibleTree, left: list[int]) -> None:
    """Grant `folder`'s visible entries one by one, folders whole where clean."""
    for entry in sorted(_entries(folder), key=lambda e: e.name):
        if is_hidden_name(entry.name) or entry.is_symlink():
            continue
        path = Path(entry.path)
        if not entry.is_dir(follow_symlinks=False):
            tree.paths.append(path)
            continue
        if left[0] <= 0:
            tree.unchecked.append(path)
        elif _clean(path, left):
            tree.paths.append(path)
        elif left[0] <= 0:
            tree.unchecked.append(path)
        else:
            _open_up(path, tree, left)


__all__ = ["WALK_BUDGET", "VisibleTree", "is_hidden_name", "visible_tree"]
