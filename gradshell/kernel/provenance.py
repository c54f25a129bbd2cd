"""Before the kernel confines itself: every module it imported came from a read-only tree.

The kernel starts in Python's isolated mode with its working directory outside anything
learner code can write, so a file planted by an earlier kernel (`json.py`,
`gradshell/kernel/__main__.py`, `sitecustomize.py`, a `.pth`) is never on its import path.
This check is the second lock on the same door: if a module was nonetheless loaded from a
writable folder, or the import path names one, the kernel refuses to start instead of
confining code that already ran unconfined.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import ModuleType


def _spellings(path: str) -> tuple[str, str]:
    """`path` as written (absolute) and where its links lead."""
    return os.path.abspath(path), os.path.realpath(path)


def _in_any(place: str, trees: list[str]) -> bool:
    return any(place == tree or place.startswith(tree.rstrip(os.sep) + os.sep) for tree in trees)


def _module_files(module: ModuleType) -> Iterator[str]:
    spec_file = getattr(module, "__file__", None)
    if isinstance(spec_file, str):
        yield spec_file
    search = getattr(module, "__path__", None)
    if search is not None and spec_file is None:  # a namespace package: its folders
        try:
            yield from (p for p in list(search) if isinstance(p, str))
        except TypeError:
            return


def untrusted_imports(
    read_only: Iterable[Path], writable: Iterable[Path], modules: dict | None = None
) -> list[str]:
    """What came from outside the read-only trees or from a writable folder: module
    names (with their file) and import-path entries, in words; empty when all is well."""
    trusted = [os.path.abspath(p) for p in read_only]
    trusted += [os.path.realpath(p) for p in read_only]
    written = [os.path.abspath(p) for p in writable]
    written += [os.path.realpath(p) for p in writable]
    found: list[str] = []
    for name, module in list((modules if modules is not None else sys.modules).items()):
        if not isinstance(module, ModuleType):
            continue
        for file in _module_files(module):
            # Either spelling in a writable folder is untrusted; either in a read-only tree
            # is trusted (a system's own link, Debian's sitecustomize.py into /etc, is as
            # trusted as the tree that holds it).
            spellings = _spellings(file)
            if any(_in_any(place, written) for place in spellings) or not any(
                _in_any(place, trusted) for place in spellings
            ):
                found.append(f"module {name} from {file}")
    for entry in sys.path:
        if entry in ("", ".") or any(_in_any(place, written) for place in _spellings(entry)):
            found.append(f"import path entry {entry or repr(entry)}")
    return found


__all__ = ["untrusted_imports"]
