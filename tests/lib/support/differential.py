"""Run one program against gradshell's torch and real PyTorch and compare what it did.

A program is Python source that uses `torch` (and `np`); every name it binds is
compared afterwards: tensors by value (with a tolerance), dtype, shape, requires_grad,
is_leaf, grad_fn name and `.grad`; other values by equality of their description.
An exception must have the same type and message in both.
"""

from __future__ import annotations

import hashlib
import math
import re
import warnings

import numpy as np

from gradshell import torch as gtorch
from support import oracle

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def describe(value, torch_mod, depth: int = 0):
    """A comparable description of `value` (tensors become dicts of their observable state)."""
    if depth > 4:
        return "<deep>"
    if isinstance(value, torch_mod.Tensor):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            grad = value.grad if value.is_leaf or value.retains_grad else None
        fn = value.grad_fn
        return {
            "tensor": np.array(value.detach().cpu().numpy(), copy=True),
            "dtype": str(value.dtype),
            "shape": tuple(value.shape),
            "requires_grad": value.requires_grad,
            "is_leaf": value.is_leaf,
            "grad_fn": None if fn is None else type(fn).__name__,
            "grad": None if grad is None else describe(grad, torch_mod, depth + 1),
        }
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [describe(v, torch_mod, depth + 1) for v in value]
    if isinstance(value, (bool, int, float, str, type(None))):
        return value
    if isinstance(value, np.ndarray):
        return {"tensor": value}
    return _ADDRESS.sub("0x…", repr(value))


def _close(a, b, rtol: float, atol: float) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return False
        return all(_close(a[k], b[k], rtol, atol) for k in a)
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.kind in "fc":
            return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
        return bool(np.array_equal(a, b))
    if isinstance(a, tuple) and isinstance(b, tuple) or isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(
            _close(x, y, rtol, atol) for x, y in zip(a, b, strict=False)
        )
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=rtol, abs_tol=atol) or (math.isnan(a) and math.isnan(b))
    return a == b


def run(source: str, torch_mod) -> dict:
    """Execute `source` with `torch` bound to `torch_mod`; returns the described namespace,
    or {'error': (type name, message)} if it raised."""
    ns: dict = {"torch": torch_mod, "np": np}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(source, ns)  # noqa: S102 - test programs written by the tests themselves
    except Exception as e:  # noqa: BLE001 - the exception itself is what we compare
        return {"error": (type(e).__name__, str(e))}
    return {
        k: describe(v, torch_mod)
        for k, v in ns.items()
        if not k.startswith("__") and k not in ("torch", "np") and not callable(v)
    }


def compare(source: str, real_torch, rtol: float = 1e-4, atol: float = 1e-5, message=None) -> None:
    """Assert gradshell and PyTorch agree on everything `source` binds (or on its error).

    `message`, if given, maps gradshell's error text before comparing."""
    ours = run(source, gtorch)
    theirs = oracle.computed(
        f"run {hashlib.sha256(source.encode()).hexdigest()[:16]}",
        lambda torch_mod: run(source, torch_mod),
        real_torch,
    )
    if message is not None and "error" in ours:
        ours["error"] = (ours["error"][0], message(ours["error"][1]))
    if "error" in theirs or "error" in ours:
        assert ours.get("error") == theirs.get("error"), (
            f"\n{source}\n gradshell: {ours.get('error')}\n   pytorch: {theirs.get('error')}"
        )
        return
    assert ours.keys() == theirs.keys(), f"\n{source}\n{ours.keys()} != {theirs.keys()}"
    for k in ours:
        assert _close(ours[k], theirs[k], rtol, atol), (
            f"\n{source}\n{k}:\n gradshell: {ours[k]}\n   pytorch: {theirs[k]}"
        )
