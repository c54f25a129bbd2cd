"""The imports learner code may do: `torch` (gradshell's), `numpy`, `math`, `random`.

`import torch` gives `gradshell.torch`; `import numpy as np`, `import math` and
`import random` give the allow-listed views of `safe_modules`. The checker has already
refused every other module; these functions turn the remaining import statements
into values.
"""

from __future__ import annotations

import builtins
import importlib
import sys
from types import ModuleType
from typing import Any

from gradshell.shell import policy
from gradshell.shell.errors import Refused
from gradshell.shell.safe_modules import SafeModule, has_safe_module, safe_module


def _gradshell_name(dotted: str) -> str:
    return "gradshell." + dotted


def _load(dotted: str) -> Any:
    """The learner's view of the module `dotted` (e.g. 'torch.nn', 'numpy.random')."""
    root, _, rest = dotted.partition(".")
    if root == "torch":
        try:
            return importlib.import_module(_gradshell_name(dotted))
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith(_gradshell_name(root)):
                raise ModuleNotFoundError(f"No module named '{dotted}'", name=dotted) from None
            raise
    if has_safe_module(root):
        module: Any = safe_module(root)
        for part in rest.split(".") if rest else []:
            value = vars(module).get(part)
            if not isinstance(value, SafeModule):
                raise ModuleNotFoundError(f"No module named '{dotted}'", name=dotted)
            module = value
        return module
    raise ModuleNotFoundError(f"No module named '{dotted}'", name=dotted)


def import_module(dotted: str, bind_top: bool) -> Any:
    """`import dotted` (bind_top: the value bound is the top package) or `import dotted as x`."""
    module = _load(dotted)
    if bind_top and "." in dotted:
        return _load(dotted.split(".")[0])
    return module


def import_from(dotted: str, name: str) -> Any:
    """`from dotted import name`."""
    module = _load(dotted)
    if isinstance(module, SafeModule):
        return getattr(module, name)  # refuses names it does not hold
    if hasattr(module, name):
        if not policy.attr_allowed(module, name):
            raise Refused(f"'{dotted}.{name}' is not available here")
        return getattr(module, name)
    try:
        return _load(f"{dotted}.{name}")
    except ModuleNotFoundError:
        pass
    raise ImportError(
        f"cannot import name '{name}' from '{dotted}' (unknown location)",
        name=dotted,
    )


def import_star(dotted: str) -> None:
    """`from dotted import *` into the caller's (the learner's) globals."""
    module = _load(dotted)
    target = sys._getframe(1).f_globals
    if isinstance(module, SafeModule):
        target.update(module._gs_items())
        return
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    for name in names:
        if not name.startswith("_") and hasattr(module, name):
            if policy.attr_allowed(module, name):
                target[name] = getattr(module, name)


GUARD_NAMES = {
    "_gs_import": import_module,
    "_gs_import_from": import_from,
    "_gs_import_star": import_star,
}


def unsafe_import(
    name: str,
    globals: dict | None = None,
    locals: dict | None = None,
    fromlist: Any = (),
    level: int = 0,
) -> ModuleType:
    """`__import__` for --unsafe sessions: plain Python, except `torch` is gradshell's."""
    if level == 0 and (name == "torch" or name.startswith("torch.")):
        module = importlib.import_module(_gradshell_name(name))
        if fromlist:
            return module
        return importlib.import_module("gradshell.torch")
    return builtins.__import__(name, globals, locals, fromlist, level)
