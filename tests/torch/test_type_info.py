"""torch.finfo / torch.iinfo: printouts, attribute values and errors against PyTorch."""

from __future__ import annotations

import pytest
from support import oracle

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")


def _outcome(fn) -> str:
    try:
        return repr(fn())
    except Exception as e:  # noqa: BLE001 - the error itself is compared
        return f"{type(e).__name__}: {e}"


def _report(T) -> list[str]:
    """Everything a learner can see of the dtype limits, as text."""
    lines = []
    for name in ("float32", "float16", "bfloat16", "float64"):
        f = T.finfo(getattr(T, name))
        values = (f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.bits, f.resolution, f.dtype)
        lines.append(f"{f!r} {f} {values!r}")
    for name in ("int32", "uint8", "int8", "int16", "int64"):
        i = T.iinfo(getattr(T, name))
        lines.append(f"{i!r} {(i.max, i.min, i.bits, i.dtype)!r}")
    lines.append(f"{T.finfo()!r} {T.finfo(type=T.float16)!r} {T.finfo} {T.iinfo}")
    lines.append(repr(type(T.finfo())))
    lines.append(repr(T.finfo(T.float32) == T.finfo(T.float32)))
    lines.append(repr(T.finfo(T.float32) == T.finfo(T.float64)))
    lines.append(repr(T.iinfo(T.int8) == T.iinfo(T.int8)))
    errors = [
        lambda: T.finfo(T.int32),
        lambda: T.finfo(T.bool),
        lambda: T.iinfo(T.bool),
        lambda: T.iinfo(T.float32),
        lambda: T.finfo("float32"),
        lambda: T.iinfo(3),
        lambda: T.iinfo(),
        lambda: hash(T.finfo()),
        lambda: setattr(T.finfo(), "eps", 1.0),
        lambda: setattr(T.iinfo(T.int8), "max", 1),
    ]
    lines.extend(_outcome(e) for e in errors)
    return lines


def test_limits_print_and_fail_as_pytorch():
    ours = _report(gtorch)
    theirs = oracle.computed("finfo and iinfo report", _report, torch)
    assert ours == theirs


def test_finfo_follows_the_default_dtype():
    gtorch.set_default_dtype(gtorch.float64)
    try:
        assert gtorch.finfo().dtype == "float64"
    finally:
        gtorch.set_default_dtype(gtorch.float32)
    assert gtorch.finfo().dtype == "float32"
