"""The keywords PyTorch's argument parser accepts besides the documented names: NumPy's
spellings (`axis=` for `dim=`, `keepdims=` for `keepdim=`), `input=` for a function's
first tensor, `size=` for the sizes of `torch.zeros(*size)` and friends, and `out=` on
functions that compute a fresh tensor.

`install` wraps the torch functions and Tensor methods once the namespace is built; a
call without keywords pays one extra Python call and nothing else.
"""

from __future__ import annotations

import functools
import inspect
import types

from gradshell.core.tensor import Tensor
from gradshell.torch._torch_names import PYTHON_FUNCTIONS, PYTHON_METHODS

#: NumPy spelling -> PyTorch's parameter name (as PyTorch's argument parser maps them).
_ALIASES = {"axis": "dim", "keepdims": "keepdim"}

#: Methods whose parameters hide behind *args/**kwargs but which take dim= and keepdim=.
_DIM_TAKERS = frozenset({"max", "min", "std", "var", "median", "mode", "sort", "topk"})


class _Plan:
    """How one function's keywords are rewritten (worked out once, from its signature)."""

    __slots__ = ("name", "aliases", "first", "var_size", "takes_out")

    def __init__(self, name: str, aliases: dict, first: str | None, var_size: bool, out: bool):
        self.name = name
        self.aliases = aliases
        self.first = first
        self.var_size = var_size
        self.takes_out = out


def _plan(name: str, func, is_function: bool) -> _Plan | None:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return None
    var_kw = any(p.kind is p.VAR_KEYWORD for p in params.values())
    dim_taker = name in _DIM_TAKERS or "dim" in params
    # PyTorch's functions written in Python take their own keywords only.
    in_python = name in (PYTHON_FUNCTIONS if is_function else PYTHON_METHODS)
    aliases = {}
    if dim_taker and not in_python:
        for alias, real in _ALIASES.items():
            if alias not in params and (real in params or var_kw):
                aliases[alias] = real
    first = None
    positional = [
        p for p in params.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    if is_function and positional and "input" not in params and positional[0].name == "self":
        first = positional[0].name
    var_size = any(p.kind is p.VAR_POSITIONAL and p.name == "size" for p in params.values())
    # out= is for tensor ops (first argument a tensor) that PyTorch implements in C++.
    takes_out = "out" in params or in_python or not positional or positional[0].name != "self"
    if not aliases and first is None and not var_size and (takes_out or not is_function):
        return None
    return _Plan(name, aliases, first, var_size, takes_out)


def _rewrite(plan: _Plan, args: tuple, kwargs: dict) -> tuple[tuple, dict, object]:
    """(args, kwargs, out) with PyTorch's alternative keywords turned into the function's."""
    for alias, real in plan.aliases.items():
        if alias in kwargs:
            if real in kwargs:  # PyTorch then takes the alias for an unknown keyword
                raise TypeError(f"{plan.name}() got an unexpected keyword argument '{alias}'")
            kwargs[real] = kwargs.pop(alias)
    if plan.first is not None and "input" in kwargs:
        if args:
            raise TypeError(f"{plan.name}() got multiple values for argument 'input'")
        args = (kwargs.pop("input"),)
    if plan.var_size and "size" in kwargs:
        if args:
            raise TypeError(f"{plan.name}() got multiple values for argument 'size'")
        args = (kwargs.pop("size"),)
    out = None
    if not plan.takes_out and "out" in kwargs:
        out = kwargs.pop("out")
    return args, kwargs, out


def _store(plan: _Plan, result, out):
    """Write `result` into the out= tensor(s) and return them, as PyTorch's out= variants do."""
    from gradshell.ops.inplace import write_out

    if isinstance(result, Tensor):
        if not isinstance(out, Tensor):
            raise TypeError(
                f"{plan.name}(): argument 'out' must be Tensor, not {type(out).__name__}"
            )
        return write_out(out, result)
    if isinstance(result, tuple) and isinstance(out, (tuple, list)) and len(out) == len(result):
        for o, r in zip(out, result, strict=True):
            _store(plan, r, o)
        return type(result)(out) if type(result) is tuple else result._make(out)
    raise TypeError(f"{plan.name}(): argument 'out' must be tuple of Tensors")


def accept_torch_keywords(name: str, func, *, is_function: bool):
    """`func` wrapped to take PyTorch's alternative keywords, or `func` if it needs none."""
    plan = _plan(name, func, is_function)
    if plan is None:
        return func

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if not kwargs:
            return func(*args)
        args, kwargs, out = _rewrite(plan, args, kwargs)
        if out is None:
            return func(*args, **kwargs)
        return _store(plan, func(*args, **kwargs), out)

    wrapper._gs_keywords = True
    return wrapper


def install(namespace: types.ModuleType) -> None:
    """Wrap the public functions of `namespace` (torch) and every Tensor method that takes
    a dim, so both accept PyTorch's alternative keywords."""
    for name, f in list(vars(namespace).items()):
        if name.startswith("_") or not isinstance(f, types.FunctionType):
            continue
        if not getattr(f, "_gs_keywords", False):
            setattr(namespace, name, accept_torch_keywords(name, f, is_function=True))
    for name, f in list(vars(Tensor).items()):
        if name.startswith("_") or not isinstance(f, types.FunctionType):
            continue
        if getattr(f, "_gs_keywords", False):
            continue
        setattr(Tensor, name, accept_torch_keywords(name, f, is_function=False))
