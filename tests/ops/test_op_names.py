"""The names the op registry fills in: every name `torch` and `Tensor` offered before the
registry existed is still there, bound to the same kind of thing (snapshot in
op_names.json). A name added on purpose is added to the snapshot with its op."""

from __future__ import annotations

import json
import types
from pathlib import Path

from gradshell import torch as gtorch
from gradshell.core.tensor import Tensor

SNAPSHOT = Path(__file__).with_name("op_names.json")

#: Attributes Python caches on a class once it is pickled or copied (copyreg).
_RUNTIME_CACHES = frozenset({"__slotnames__"})


def _describe(value) -> str:
    """A stable description of what a name is bound to (no addresses, no file layout)."""
    f = value
    while hasattr(f, "__wrapped__"):  # keyword wrappers keep the op as __wrapped__
        f = f.__wrapped__
    if isinstance(f, types.ModuleType):
        return "module"
    if isinstance(f, type):
        return "class " + f.__name__
    if isinstance(f, (types.FunctionType, types.BuiltinFunctionType)):
        return "function " + f.__name__
    if isinstance(f, property):
        return "property"
    if isinstance(f, (staticmethod, classmethod)):
        return type(f).__name__
    return type(f).__name__


def current() -> dict:
    """{'torch': {name: description}, 'Tensor': {name: description}} as they are now."""
    # public names only: the module's private helpers (and its dunders, which depend on
    # who imported it first) are not part of the namespace learners use
    torch_names = {n: _describe(getattr(gtorch, n)) for n in dir(gtorch) if n[0] not in "_@"}
    tensor_names = {
        n: _describe(Tensor.__dict__.get(n, getattr(Tensor, n)))
        for n in dir(Tensor)
        if n not in _RUNTIME_CACHES
    }
    return {"torch": torch_names, "Tensor": tensor_names}


def test_torch_and_tensor_names_unchanged():
    want = json.loads(SNAPSHOT.read_text())
    have = current()
    for space in ("torch", "Tensor"):
        missing = sorted(set(want[space]) - set(have[space]))
        assert not missing, f"{space} lost {missing}"
        added = sorted(set(have[space]) - set(want[space]))
        assert not added, f"{space} gained {added} (add them to the snapshot on purpose)"
        changed = {
            n: (want[space][n], have[space][n])
            for n in want[space]
            if want[space][n] != have[space][n]
        }
        assert not changed, f"{space} names bound differently: {changed}"


if __name__ == "__main__":  # regenerate: uv run python tests/ops/test_op_names.py
    SNAPSHOT.write_text(json.dumps(current(), indent=1, sort_keys=True) + "\n")
