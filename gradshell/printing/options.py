"""Print options (`torch.set_printoptions`) and the print style ('modern' or 'legacy').

One store serves both styles: PyTorch 0.3 and 2.13 share the defaults and profiles
(precision 4, threshold 1000, edgeitems 3, linewidth 80). They differ in how the
options are read (0.3 summarises at ``numel >= threshold``, 2.13 at ``numel >
threshold``; 0.3 has no ``sci_mode``), and that is the formatters' business.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from typing import Any

from gradshell.core.era import STYLES

_DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80}
_PROFILES = {
    "default": dict(_DEFAULTS),
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


class PrintOptions:
    """The current print options; one shared instance, `OPTS`."""

    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self) -> None:
        self.precision: Any = 4
        self.threshold: Any = 1000
        self.edgeitems: Any = 3
        self.linewidth: Any = 80
        self.sci_mode: Any = None

    def as_dict(self) -> dict[str, Any]:
        """The options in `get_printoptions()` order."""
        return {name: getattr(self, name) for name in self.__slots__}


OPTS = PrintOptions()
_style = "modern"


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set the print options as `torch.set_printoptions` does.

    A profile ('default', 'short', 'full') is applied first, then any explicit option.
    As in PyTorch, an unknown profile is ignored and `sci_mode` is reset to None
    (automatic) by every call that does not pass it. PyTorch 0.3 had no `sci_mode`, so in
    the legacy style passing one is the TypeError 0.3 raised.
    """
    if sci_mode is not None and _style == "legacy":
        raise TypeError("set_printoptions() got an unexpected keyword argument 'sci_mode'")
    if profile is not None and profile in _PROFILES:
        for name, value in _PROFILES[profile].items():
            setattr(OPTS, name, value)
    if precision is not None:
        OPTS.precision = precision
    if threshold is not None:
        OPTS.threshold = threshold
    if edgeitems is not None:
        OPTS.edgeitems = edgeitems
    if linewidth is not None:
        OPTS.linewidth = linewidth
    OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options as a dict that `set_printoptions(**d)` accepts."""
    return OPTS.as_dict()


def _restore(saved: dict[str, Any]) -> None:
    for name, value in saved.items():
        setattr(OPTS, name, value)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Change the print options inside a `with` block (`torch._tensor_str.printoptions`)."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        _restore(saved)


def reset_printoptions() -> None:
    """Back to PyTorch's defaults (a fresh session)."""
    _restore({**_DEFAULTS, "sci_mode": None})


_style_listeners: list[Callable[[str], None]] = []


def add_style_listener(listener: Callable[[str], None]) -> Callable[[], None]:
    """Call `listener(style)` now and after every style change; returns a remover.

    The print style is also the era switch: the core follows it (e.g. 0.2's backward
    semantics in the legacy style) by listening here, so printing need not know the core.
    """
    _style_listeners.append(listener)
    listener(_style)

    def remove() -> None:
        if listener in _style_listeners:
            _style_listeners.remove(listener)

    return remove


def set_print_style(style: str) -> None:
    """Print tensors in the 'modern' (PyTorch 2.13) or 'legacy' (PyTorch 0.2/0.3) style."""
    global _style
    if style not in STYLES:
        raise ValueError(f"unknown print style {style!r}: expected 'modern' or 'legacy'")
    _style = style
    for listener in tuple(_style_listeners):
        listener(style)


def get_print_style() -> str:
    """The current print style: 'modern' or 'legacy'."""
    return _style


@contextlib.contextmanager
def print_style(style: str) -> Iterator[None]:
    """Use `style` inside a `with` block, then restore the previous style."""
    previous = _style
    set_print_style(style)
    try:
        yield
    finally:
        set_print_style(previous)
