"""What an `import` statement of learner code gives, decided when its line runs.

`import torch` gives `gradshell.torch`; `numpy`, `math`, `random` and the harmless
standard library (`os`, `sys`, `time`, `collections`, `itertools`, `functools`,
`dataclasses`, `typing`, `copy`, `warnings`) give the allow-listed views of
`safe_modules`. Other standard-library modules are refused with a message that says
so; modules that are not there at all (matplotlib, torchvision) raise Python's own
``ModuleNotFoundError: No module named 'matplotlib'`` at their line, after the lines
before it ran.
"""

from __future__ import annotations

import builtins
import importlib
import sys
from types import ModuleType
from typing import Any

from gradshell.shell import guards, policy
from gradshell.shell.checker import ALLOWED_IMPORT_ROOTS
from gradshell.shell.errors import Refused
from gradshell.shell.safe_modules import SafeModule, has_safe_module, safe_module

#: Standard-library modules refused with a word on why (the rest get the generic one).
_WHY_NOT = {
    "multiprocessing": "processes cannot be started from here; threading offers threads",
    "subprocess": "programs cannot be started from here",
    "socket": "there is no network here",
    "pickle": "files are not available here yet",
    "importlib": "imports are the shell's to decide",
    "shutil": "files here are changed with pathlib and open",
    "tempfile": "files here live in the session's directory (pathlib and open)",
    "struct": "raw bytes are not available here",
    "array": "raw bytes are not available here; use numpy or torch arrays",
    "ctypes": "raw memory is not available here",
    "decimal": "exact decimal arithmetic has no size limit here; use float or torch",
    "fractions": "exact fractions have no size limit here; use float or torch",
    "inspect": "it reaches into Python's interpreter",
    "gc": "it reaches into Python's interpreter",
    "builtins": "the builtins you can use are already there",
}


def _gradshell_name(dotted: str) -> str:
    return "gradshell." + dotted


def _missing(dotted: str) -> ModuleNotFoundError:
    return ModuleNotFoundError(f"No module named '{dotted}'", name=dotted)


def _not_offered(dotted: str) -> Refused:
    root = dotted.split(".")[0]
    why = _WHY_NOT.get(root)
    if why is None:
        why = "gradshell offers " + ", ".join(ALLOWED_IMPORT_ROOTS)
    return Refused(f"import of '{dotted}' is not available here ({why})")


def _torch_loaded(module: Any) -> Any:
    """Tell the guards about the tensor type and torch's print options (first import)."""
    if guards._TENSOR is guards._NoTensor:
        from gradshell.core.tensor import Tensor
        from gradshell.printing import set_printoptions
        from gradshell.shell import torch_sizes
        from gradshell.shell.safe_modules import _checked_printoptions, safe_module

        # arrays from `t.numpy()` answer as NumPy's do, whether or not numpy is imported
        safe_module("numpy")
        guards.set_tensor_type(Tensor)
        guards.substitute_call(set_printoptions, _checked_printoptions(set_printoptions))
        torch_sizes.install(importlib.import_module("gradshell.torch"), Tensor)
    return module


def _load(dotted: str) -> Any:
    """The learner's view of the module `dotted` (e.g. 'torch.nn', 'numpy.random')."""
    root, _, rest = dotted.partition(".")
    if root == "torch":
        try:
            return _torch_loaded(importlib.import_module(_gradshell_name(dotted)))
        except ModuleNotFoundError as exc:
            prefix = _gradshell_name("")
            if exc.name and exc.name.startswith(_gradshell_name(root)):
                from gradshell.torch._missing import not_supported
                from gradshell.torch._torch_names import SUBMODULES

                if dotted in SUBMODULES:  # real PyTorch has it: say gradshell lacks it
                    raise not_supported(dotted) from None
                raise _missing(exc.name[len(prefix) :]) from None
            raise
    if has_safe_module(root):
        module: Any = safe_module(root)
        done = root
        for part in rest.split(".") if rest else []:
            done += "." + part
            value = vars(module).get(part)
            if not isinstance(value, SafeModule):
                if module._gs_has(part) or done in sys.modules:
                    raise _not_offered(done)
                raise _missing(done)
            module = value
        return module
    if root in sys.stdlib_module_names or root.startswith("_"):
        raise _not_offered(dotted)
    raise _missing(root)


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
        if name in vars(module) and not name.startswith("_"):
            return getattr(module, name)
        if not module._gs_has(name):
            raise ImportError(f"cannot import name '{name}' from '{dotted}'", name=dotted)
        return getattr(module, name)  # refuses, naming what is not offered
    if hasattr(module, name):
        if not policy.attr_allowed(module, name):
            raise Refused(f"'{dotted}.{name}' is not available here")
        return guards.checked_value(getattr(module, name))
    try:
        return _load(f"{dotted}.{name}")
    except ModuleNotFoundError:
        pass
    from gradshell.torch._torch_names import PUBLIC

    if name in PUBLIC.get(dotted, ()):  # a PyTorch name gradshell lacks
        from gradshell.torch._missing import not_supported

        raise not_supported(f"{dotted}.{name}")
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
                target[name] = guards.checked_value(getattr(module, name))


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
