"""The op registry: every op declares here, once, the names it goes by — its Tensor
methods (operators, in-place variants and aliases included) and its names in the
`torch` namespace — and `install` puts them on Tensor in one place.

An op module declares with the decorator, beside the forward function (as unary.py
declares asinh):

    @op("asinh", "arcsinh", torch=("asinh", "arcsinh"),
        inplace=("asinh_", "arcsinh_"), inplace_fn=asinh_)
    def asinh(self): ...

and the backward node class it records (`AsinhBackward0`) sits next to it, with its
`backward` and its `explain` formula. (`base.tensor_method(*methods, torch=...)` is the
same decorator without an in-place variant.) `gradshell.ops` calls `install(Tensor)` after
importing every family; `gradshell.torch` takes its functions from `functions()`.
"""

from __future__ import annotations

from collections.abc import Callable

_METHODS: dict[str, Callable] = {}
_FUNCTIONS: dict[str, Callable] = {}
_installed: type | None = None


def method(name: str, func) -> None:
    """Declare `func` (a function, property or descriptor) as the Tensor attribute `name`."""
    _METHODS[name] = func
    if _installed is not None:  # a late declaration (an op added after install)
        setattr(_installed, name, func)


def function(name: str, func: Callable) -> None:
    """Declare `func` as `torch.<name>`."""
    _FUNCTIONS[name] = func


def op(*methods: str, torch: tuple[str, ...] = (), inplace: tuple[str, ...] = (), inplace_fn=None):
    """Decorator declaring an op: `methods` are the Tensor methods the function is (its
    operators and aliases too), `torch` its names in the torch namespace, and `inplace`
    the Tensor methods of its in-place variant `inplace_fn`."""

    def deco(func):
        for n in methods:
            method(n, func)
        for n in torch:
            function(n, func)
        for n in inplace:
            method(n, inplace_fn)
        return func

    return deco


def install(tensor_cls: type) -> None:
    """Put every declared method on `tensor_cls` (called once, by `gradshell.ops`)."""
    global _installed
    for name, func in _METHODS.items():
        setattr(tensor_cls, name, func)
    _installed = tensor_cls


def functions() -> dict[str, Callable]:
    """torch's op functions, name -> function (a copy)."""
    return dict(_FUNCTIONS)


def methods() -> dict[str, Callable]:
    """Tensor's op methods, name -> function (a copy)."""
    return dict(_METHODS)
