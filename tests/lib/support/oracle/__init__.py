"""The recorded oracle: differential tests compare gradshell with PyTorch 2.13, live when
PyTorch is installed, against recordings of its answers (tests/oracle/) when it is not.

Modes, chosen once per run by `configure`:

* live    — PyTorch is installed: tests import the real torch, nothing is recorded;
* replay  — PyTorch is absent (or hidden with GRADSHELL_HIDE_TORCH=1): `import torch`
            in a test gives a proxy that answers from the recording;
* record  — GRADSHELL_ORACLE=record (tests/oracle/record.py): the proxy runs real
            PyTorch and writes down every answer.
"""

from __future__ import annotations

import builtins
import functools
import importlib.abc
import importlib.util
import json
import os
import sys
from pathlib import Path

from support.oracle.engine import ORACLE, Mismatch
from support.oracle.log import ORACLE_DIR, TESTS_DIR
from support.oracle.proxy import Proxy

__all__ = [
    "ORACLE",
    "Mismatch",
    "configure",
    "torch",
    "computed",
    "is_proxy",
    "type_name",
    "replay_failing_examples",
]

MANIFEST = ORACLE_DIR / "manifest.json"
_LIBRARIES = ("torch", "torchgen", "functorch", "gradshell", "_pytest", "pytest")


class _HideTorch(importlib.abc.MetaPathFinder):
    """Makes `import torch` fail, as on a machine without PyTorch."""

    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        return None


def _torch_hidden() -> bool:
    return os.environ.get("GRADSHELL_HIDE_TORCH", "") not in ("", "0")


def choose_mode() -> str:
    """live, replay or record, from the environment and whether PyTorch is installed."""
    wanted = os.environ.get("GRADSHELL_ORACLE", "")
    if wanted == "record":
        return "record"
    if wanted == "replay" or _torch_hidden() or importlib.util.find_spec("torch") is None:
        return "replay"
    return "live"


def recorded_version() -> str:
    """The PyTorch version the recordings hold ('?' when there are none)."""
    try:
        return json.loads(MANIFEST.read_text(encoding="utf-8"))["torch"]
    except (OSError, ValueError, KeyError):
        return "?"


def _wants_proxy(globals_) -> bool:
    """Whether an `import torch` comes from test code (not from a library)."""
    if not globals_:
        return True
    name = globals_.get("__name__") or ""
    if name.split(".")[0] in _LIBRARIES:
        return False
    file = globals_.get("__file__")
    if file is None:
        return True  # code a test runs with exec
    try:
        Path(file).resolve().relative_to(TESTS_DIR)
    except ValueError:
        return False
    return True


def _install_import_hook() -> None:
    original = builtins.__import__

    def oracle_import(name, globals=None, locals=None, fromlist=(), level=0):
        is_torch = name == "torch" or name.startswith("torch.")
        real = ORACLE.passthrough or ORACLE.inside
        if level == 0 and is_torch and not real and _wants_proxy(globals):
            if ORACLE.mode == "record":
                original(name, globals, locals, fromlist, level)  # the real one, loaded
            if fromlist:
                return ORACLE.module(name)
            return ORACLE.module("torch")
        return original(name, globals, locals, fromlist, level)

    builtins.__import__ = oracle_import


def _patch_importorskip() -> None:
    import pytest

    original = pytest.importorskip

    def importorskip(modname: str, *args, **kwargs):
        if modname == "torch" or modname.startswith("torch."):
            if ORACLE.mode == "record":
                original(modname, *args, **kwargs)
            return ORACLE.module(modname)
        return original(modname, *args, **kwargs)

    pytest.importorskip = importorskip


def configure() -> str:
    """Choose the mode and set up the import of torch for it; returns the mode."""
    mode = choose_mode()
    ORACLE.mode = mode
    if mode == "replay" and (_torch_hidden() or os.environ.get("GRADSHELL_ORACLE") == "replay"):
        for name in [m for m in sys.modules if m == "torch" or m.startswith("torch.")]:
            del sys.modules[name]
        sys.meta_path.insert(0, _HideTorch())
    if "GRADSHELL_ORACLE_DIR" in os.environ:
        ORACLE.root = Path(os.environ["GRADSHELL_ORACLE_DIR"]).resolve()
    if mode != "live":
        _install_import_hook()
        _patch_importorskip()
    if mode == "replay":
        ORACLE.torch_version = recorded_version()
    return mode


def torch():
    """The torch module tests compare against: real PyTorch, or the oracle's proxy."""
    if ORACLE.mode == "live":
        import torch as real

        return real
    return ORACLE.module("torch")


def is_proxy(value) -> bool:
    """Whether `value` is a PyTorch object seen through the oracle."""
    return isinstance(value, Proxy)


def type_name(value) -> tuple[str, str]:
    """(module, name) of the type of a PyTorch object, real or proxied."""
    if isinstance(value, Proxy):
        kind = value.__getattr__("__class__")
        return kind.__module__, kind.__name__
    return type(value).__module__, type(value).__name__


def computed(what: str, fn, torch_mod):
    """`fn(torch_mod)` — a plain value computed from PyTorch as a whole (a program's
    printout, a subprocess's output). With the oracle, it is recorded in one piece:
    `fn` runs with the real torch while recording and is not run at all in replay."""
    if not isinstance(torch_mod, Proxy):
        return fn(torch_mod)
    return ORACLE.computed(what, fn, torch_mod)


def replay_failing_examples(test) -> None:
    """Let a replayed Hypothesis test report its real failure: Hypothesis runs a failing
    example again to report it, which the recording (made while it passed) does not hold;
    the replay rewinds to where that example began instead of reporting a stale recording.
    `test` is a test function; those without @given are left alone."""
    handle = getattr(test, "hypothesis", None)
    inner = getattr(handle, "inner_test", None)
    if inner is None or getattr(inner, "_oracle_rewinds", False):
        return
    from hypothesis.errors import HypothesisException

    @functools.wraps(inner)
    def example(*args, **kwargs):
        log = ORACLE.current
        if log is None or ORACLE.mode != "replay":
            return inner(*args, **kwargs)
        if log.failed_example is not None:  # the last example failed: this is its re-run
            log.rewind(log.failed_example)
            log.failed_example = None
        start = log.mark()
        try:
            return inner(*args, **kwargs)
        except HypothesisException:
            raise  # Hypothesis's own signals: the next example is a new one
        except Exception:
            log.failed_example = start
            raise

    example._oracle_rewinds = True
    handle.inner_test = example
