"""The names a learner can print: gradshell's classes present themselves under PyTorch's
module paths (`<class 'torch.nn.modules.linear.Linear'>`), never under gradshell's.

Classes defined in `gradshell.torch.<path>` mirror PyTorch's layout and become
`torch.<path>`; the few that live elsewhere in gradshell, or whose PyTorch module differs
from gradshell's file layout, are listed in `_MOVED`. Graph nodes name themselves (see
`gradshell.core.autograd.Node`). `present_as_torch` runs once the namespace is imported.
"""

from __future__ import annotations

import sys
import types

_PREFIX = "gradshell.torch."

#: (gradshell module, class name) -> PyTorch's module, where the file layout differs.
_MOVED = {
    ("gradshell.torch.autograd", "Variable"): "torch.autograd.variable",
    ("gradshell.torch.autograd", "set_detect_anomaly"): "torch.autograd.anomaly_mode",
    ("gradshell.torch.autograd", "detect_anomaly"): "torch.autograd.anomaly_mode",
    ("gradshell.torch.optim.adam", "AdamW"): "torch.optim.adamw",
    ("gradshell.torch.nn.modules.backward_hooks", "BackwardHook"): "torch.utils.hooks",
    (
        "gradshell.torch.nn.modules.backward_hooks",
        "BackwardHookFunction",
    ): "torch.nn.modules._functions",
    ("gradshell.torch.nn.modules.attention", "MultiheadAttention"): "torch.nn.modules.activation",
}


def torch_module_name(module: str, name: str) -> str | None:
    """PyTorch's module for the class `name` defined in gradshell module `module`, or None
    if it is not a class of the torch namespace."""
    moved = _MOVED.get((module, name))
    if moved is not None:
        return moved
    if module.startswith(_PREFIX):
        return "torch." + module[len(_PREFIX) :]
    return None


def present_as_torch() -> None:
    """Give every class defined in gradshell's torch modules its PyTorch module name."""
    public: dict[int, str] = {}  # a module registered under a public alias goes by it
    for modname, mod in list(sys.modules.items()):
        if mod is not None and modname.startswith(_PREFIX) and "._" not in modname:
            public.setdefault(id(mod), modname)
    for modname, mod in list(sys.modules.items()):
        if mod is None or not modname.startswith(_PREFIX):
            continue
        shown = public.get(id(mod), modname)
        for value in list(vars(mod).values()):
            if not isinstance(value, type) or value.__dict__.get("__module__") != modname:
                continue  # only classes defined here (not imported ones)
            new = torch_module_name(shown, value.__name__)
            if new is not None:
                value.__module__ = new


class TorchModule(types.ModuleType):
    """A gradshell torch module: it prints as the PyTorch module it stands for
    (`<module 'torch.nn' (gradshell)>`), without a gradshell path or a host file path."""

    def __repr__(self) -> str:
        name = self.__name__
        shown = (
            "torch" + name[len("gradshell.torch") :] if name.startswith("gradshell.torch") else name
        )
        return f"<module '{shown}' (gradshell)>"


# `type(torch)` prints `<class 'module'>`, as PyTorch's does
TorchModule.__module__ = "builtins"
TorchModule.__name__ = TorchModule.__qualname__ = "module"

#: the module classes the shell treats as plain modules (exact types, not subclasses)
MODULE_TYPES = frozenset({types.ModuleType, TorchModule})


def present_modules_as_torch() -> None:
    """Make every gradshell torch module print under its PyTorch name (a private file
    registered under a public name, `torch.autograd.functional`, goes by that name)."""
    for modname, mod in list(sys.modules.items()):
        if modname == _PREFIX[:-1] or modname.startswith(_PREFIX):
            if type(mod) is types.ModuleType:
                mod.__class__ = TorchModule
            if "._" not in modname and "._" in getattr(mod, "__name__", ""):
                mod.__name__ = modname
