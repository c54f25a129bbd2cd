"""Shared helpers of the views: the rich console, compact values, learner names, and
evaluating a short expression the learner typed after a magic.

Views render to text (with colour only when the visual channel is a colour terminal and
NO_COLOR is unset); the shell writes that text to its visual channel.
"""

from __future__ import annotations

import io
import re
import shutil
from typing import TYPE_CHECKING, Any

import numpy as np

from gradshell.core.device import to_numpy
from gradshell.core.tensor import Tensor
from gradshell.ops.explanation import number  # noqa: F401 - viz's callers use it from here
from gradshell.viz import host
from gradshell.viz.terminal import color_wanted

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    from gradshell.shell.session import Session

#: Width of views when the terminal's width is unknown (and of golden tests).
DEFAULT_WIDTH = 100
MAX_WIDTH = 120


def make_console(width: int | None = None, color: bool | None = None) -> Console:
    """A recording rich console that writes nowhere (views are exported as text)."""
    from rich.console import Console

    if color is None:
        color = color_wanted()
    if width is None:
        width = min(shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns, MAX_WIDTH)
    return Console(
        file=io.StringIO(),
        record=True,
        width=width,
        force_terminal=color,
        color_system="standard" if color else None,
        no_color=not color,
        highlight=False,
        emoji=False,
        soft_wrap=False,
    )


def render(renderable: RenderableType, width: int | None = None, color: bool | None = None) -> str:
    """`renderable` as text (ANSI-styled only when `color`), ending with a newline."""
    console = make_console(width, color)
    console.print(renderable)
    colored = console.color_system is not None
    text = console.export_text(styles=colored)
    if not colored:  # rich pads lines to the width; golden files should not depend on it
        text = "\n".join(line.rstrip() for line in text.split("\n"))
    return text if text.endswith("\n") else text + "\n"


# --- values -------------------------------------------------------------------------------


def host_array(value: Any) -> np.ndarray | None:
    """A host NumPy array for a tensor or array (None for None)."""
    if value is None:
        return None
    if isinstance(value, Tensor):
        return to_numpy(value._data)
    return np.asarray(value)


def compact(
    value: Any,
    floating: bool | None = None,
    *,
    threshold: Any = None,
    edgeitems: Any = None,
) -> str:
    """A tensor's values on one line, in PyTorch's number format and summarised as PyTorch
    summarises large tensors (the printers' own `values_str`, whitespace folded);
    `threshold`/`edgeitems` override the current print options."""
    if value is None:
        return "None"
    from gradshell.printing.modern import values_str
    from gradshell.printing.options import OPTS, PrintOptions

    arr = host_array(value)
    if floating is None:
        floating = arr.dtype.kind == "f"
    opts = PrintOptions()
    for name in opts.__slots__:
        setattr(opts, name, getattr(OPTS, name))
    opts.linewidth = 10**9  # one line per row; rows are joined below
    if threshold is not None:
        opts.threshold = threshold
    if edgeitems is not None:
        opts.edgeitems = edgeitems
    if arr.ndim == 0:
        return number(arr.item())
    text = values_str(arr, floating, 0, opts)
    text = re.sub(r"\s+", " ", text)
    return text.replace("[ ", "[").replace(" ]", "]")


def uniform(arr: np.ndarray | None) -> Any:
    """The single value of `arr` when all its elements are equal (else None)."""
    if arr is None or arr.size == 0:
        return None
    flat = arr.reshape(-1)
    first = flat[0]
    if arr.size == 1 or bool(np.all(flat == first)):
        return first.item()
    return None


def short(value: Any) -> str:
    """One number when every element is the same, else the compact values."""
    if value is None:
        return "None"
    arr = host_array(value)
    u = uniform(arr)
    if u is not None:
        return number(u)
    return compact(arr)


def shape_text(shape: tuple) -> str:
    """A shape as PyTorch lists it: [2, 2]."""
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def fraction(n: int) -> str:
    """`1/n` as text."""
    return f"1/{n}"


def display_name(node: Any) -> str:
    """A node's name as the current print style shows it: PyTorch 2.13's
    (`MulBackward0`), or 0.2's in the legacy style (`MulConstantBackward`)."""
    if node.legacy_name_02:
        from gradshell.printing.options import get_print_style

        if get_print_style() == "legacy":
            return node.legacy_name_02
    return node.name().rpartition("::")[2]


# --- the learner's names ------------------------------------------------------------------


class Namer:
    """Names the learner gave to tensors and graph nodes (their variables), read from a
    session's namespace once; falls back to a short description."""

    def __init__(self, namespace: dict[str, Any] | None = None) -> None:
        self.tensors: dict[int, str] = {}
        self.nodes: dict[tuple[int, int], str] = {}
        self.order: dict[int, int] = {}
        """id(tensor) -> when it got its name (variables first, a module's parameters in
        the module's order), so that panels list tensors in that order."""
        if not namespace:
            return
        for key, value in namespace.items():
            if key.startswith("_"):
                continue
            self._add(key, value)
        # one level into containers and simple objects (params[0], model.w)
        for key, value in namespace.items():
            if key.startswith("_") or isinstance(value, Tensor):
                continue
            params = _module_parameters(value)
            if params is not None:  # a module: its parameters by their dotted names
                for dotted, item in params:
                    self._add(key + dotted, item, weak=True)
            elif isinstance(value, list | tuple):
                for i, item in enumerate(value[:64]):
                    self._add(f"{key}[{i}]", item, weak=True)
            elif isinstance(value, dict):
                for k, item in list(value.items())[:64]:
                    if isinstance(k, str | int):
                        self._add(f"{key}[{k!r}]", item, weak=True)
            else:
                attrs = getattr(value, "__dict__", None)
                if isinstance(attrs, dict) and not isinstance(value, type):
                    for k, item in list(attrs.items())[:64]:
                        if isinstance(k, str) and not k.startswith("_"):
                            self._add(f"{key}.{k}", item, weak=True)

    def add(self, name: str, value: Any) -> None:
        """Also call tensor `value` `name` (unless it already has a name)."""
        self._add(name, value, weak=True)

    def _add(self, name: str, value: Any, weak: bool = False) -> None:
        if not isinstance(value, Tensor):
            return
        if weak and id(value) in self.tensors:
            return
        self.tensors.setdefault(id(value), name)
        self.order.setdefault(id(value), len(self.order))
        fn = value.grad_fn
        if fn is not None:
            self.nodes.setdefault((id(fn), value.output_nr), name)

    def rank(self, t: Any) -> int:
        """Where tensor `t` comes in the learner's order (unnamed tensors last)."""
        return self.order.get(id(t), len(self.order))

    def tensor(self, t: Any) -> str | None:
        """The learner's name for tensor `t`, or None."""
        return self.tensors.get(id(t))

    def node_output(self, node: Any, output_nr: int = 0) -> str | None:
        """The learner's name for output `output_nr` of graph node `node`, or None."""
        return self.nodes.get((id(node), output_nr))

    def label(self, t: Any) -> str:
        """A name for tensor `t`: the learner's, or a description such as 'leaf [2, 2]'."""
        name = self.tensor(t)
        if name is not None:
            return name
        kind = "leaf" if t.grad_fn is None else display_name(t.grad_fn)
        return f"<{kind} {shape_text(tuple(t.shape))}>"

    def grad_label(self, t: Any) -> str:
        """'x.grad' for a named tensor, '<leaf [3]>.grad' otherwise."""
        return f"{self.label(t)}.grad"


#: Parameters named per module (a bigger model's other parameters keep a description).
MODULE_PARAMETERS = 4096


def _module_parameters(value: Any) -> list[tuple[str, Any]] | None:
    """`[(".fc1.weight", p), ("[2].weight", p), ...]` for a torch.nn module, in the
    module's order (as `named_parameters()` lists them); None for anything else.

    Reads the modules' own tables rather than calling methods a learner's subclass may
    have overridden."""
    import sys

    module_mod = sys.modules.get("gradshell.torch.nn.modules.module")
    if module_mod is None or not isinstance(value, module_mod.Module):
        return None
    out: list[tuple[str, Any]] = []
    seen_params: set[int] = set()
    seen_mods: set[int] = set()

    def walk(mod: Any, prefix: str, depth: int) -> None:
        if id(mod) in seen_mods or depth > 32 or len(out) >= MODULE_PARAMETERS:
            return
        seen_mods.add(id(mod))
        table = getattr(mod, "__dict__", {})
        for name, p in list(table.get("_parameters", {}).items()):
            if isinstance(p, Tensor) and id(p) not in seen_params:
                seen_params.add(id(p))
                out.append((prefix + _part(name), p))
        for name, child in list(table.get("_modules", {}).items()):
            if child is not None:
                walk(child, prefix + _part(name), depth + 1)

    walk(value, "", 0)
    return out


def _part(name: Any) -> str:
    """One step of a dotted parameter name as Python spells it: `[2]`, `.fc1`, `['a b']`."""
    text = str(name)
    if text.isdigit():
        return f"[{text}]"
    if text.isidentifier():
        return f".{text}"
    return f"[{text!r}]"


def article(noun: str) -> str:
    """'an int', 'a float', 'an Optimizer': the noun with its English article."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def namer_for(session: Session | None) -> Namer:
    """A Namer over `session`'s variables (empty without a session)."""
    return Namer(session.namespace if session is not None else None)


# --- expressions typed after a magic ------------------------------------------------------


class ExpressionError(Exception):
    """An expression after a magic could not be evaluated; the message says why."""


def evaluate(session: Session, text: str, overrides: dict[str, Any] | None = None) -> Any:
    """Evaluate a DSL expression in (a copy of) the session's namespace, through the same
    checks as learner code (the shell's own evaluation); `overrides` rebinds names only for
    this evaluation. Raises ExpressionError with the reason."""
    return host.current.evaluate(session, text, overrides)


def lookup_tensor(session: Session, text: str) -> Tensor:
    """The tensor an argument names (a variable or a short expression)."""
    text = text.strip()
    if not text:
        raise ExpressionError("name a tensor, e.g. out")
    value = session.namespace.get(text) if text.isidentifier() else None
    if value is None:
        value = evaluate(session, text)
    if not isinstance(value, Tensor):
        raise ExpressionError(f"{text} is not a tensor (it is {article(type(value).__name__)})")
    return value
