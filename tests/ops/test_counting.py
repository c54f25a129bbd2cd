"""count_nonzero, bincount, histc, searchsorted, bucketize, isin, tril_indices and
triu_indices against PyTorch: each call's printout (values, dtype) or its error."""

from __future__ import annotations

import pytest
from support import oracle

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")


def _calls(T) -> list:
    a = T.tensor([[0.0, 1.5, 0], [2, 0, 3]])
    s = T.tensor([1.0, 3, 5, 7])
    v = T.tensor([[3.0, 6, 9], [0, 1, 7]])
    nan = float("nan")
    CALLS = [
        lambda: T.count_nonzero(a),
        lambda: a.count_nonzero(0),
        lambda: T.count_nonzero(a, (0, 1)),
        lambda: T.count_nonzero(a, dim=-1),
        lambda: T.count_nonzero(T.tensor([True, False])),
        lambda: T.count_nonzero(a, (0, 0)),
        lambda: T.bincount(T.tensor([1, 1, 3])),
        lambda: T.bincount(T.tensor([1, 1, 3]), minlength=6),
        lambda: T.bincount(T.tensor([1, 1, 3]), T.tensor([0.5, 1.0, 2.0])),
        lambda: T.bincount(T.tensor([1, 1, 3]), T.tensor([0.5, 1.0, 2.0]).double()),
        lambda: T.bincount(T.tensor([1, 1, 3]), T.tensor([1, 2, 3])),
        lambda: T.bincount(T.tensor([-1])),
        lambda: T.bincount(T.tensor([1.0])),
        lambda: T.bincount(T.tensor([[1]])),
        lambda: T.bincount(T.tensor([], dtype=T.int64)),
        lambda: T.tensor([2, 2]).bincount(),
        lambda: T.bincount(T.tensor([1, 1, 3]), T.tensor([0.5, 1.0])),
        lambda: T.bincount(T.tensor([1, 1, 3]).int()),
        lambda: T.histc(T.tensor([1.0, 2, 1]), bins=4, min=0, max=3),
        lambda: T.histc(T.tensor([1.0, 2, 1, 5])),
        lambda: T.histc(T.tensor([1.0, 2, 1]), 3),
        lambda: T.histc(T.tensor([1, 2, 1]), 3),
        lambda: T.histc(T.tensor([1.0, 2, 1]), 0),
        lambda: T.histc(T.tensor([1.0, 2, 1]), 3, 3, 1),
        lambda: T.histc(T.tensor([2.0, 2]), 3),
        lambda: T.tensor([1.0, 2]).histc(2).dtype,
        lambda: T.histc(T.tensor([0.1, 0.2, 0.3, 0.7, 1.0, -3]).double(), 10, 0, 1),
        lambda: T.histc(T.arange(100.0) / 7, 13, 1, 11),
        lambda: T.histc(T.tensor([1.0, nan, 2]), 2, 0, 2),
        lambda: T.searchsorted(s, v),
        lambda: T.searchsorted(s, v, right=True),
        lambda: T.searchsorted(s, v, side="right"),
        lambda: T.searchsorted(s, v, out_int32=True),
        lambda: T.searchsorted(T.tensor([[1.0, 3], [2, 4]]), T.tensor([[2.0], [5]])),
        lambda: T.searchsorted(s, 4.0),
        lambda: T.searchsorted(s, T.tensor(4)),
        lambda: T.searchsorted(T.tensor([[1.0, 3], [2, 4]]), T.tensor([2.0])),
        lambda: T.searchsorted(s, v, side="left", right=True),
        lambda: T.searchsorted(s, v, side="x"),
        lambda: T.searchsorted(T.tensor([5.0, 1, 3]), T.tensor([2.0]), sorter=T.tensor([1, 2, 0])),
        lambda: T.bucketize(v, s),
        lambda: T.bucketize(v, s, right=True),
        lambda: T.bucketize(v, s, out_int32=True),
        lambda: T.bucketize(4.0, s),
        lambda: T.bucketize(v, T.tensor([[1.0]])),
        lambda: T.isin(v, T.tensor([3.0, 7])),
        lambda: T.isin(v, T.tensor([3.0, 7]), invert=True),
        lambda: T.isin(3.0, v),
        lambda: T.isin(v, 7.0),
        lambda: T.isin(T.tensor([1, 2]), T.tensor([2.0])),
        lambda: T.isin(v, T.tensor([3.0, 7]), assume_unique=True),
        lambda: T.tril_indices(3, 3),
        lambda: T.tril_indices(3, 4, 1),
        lambda: T.triu_indices(3, 4, -1),
        lambda: T.tril_indices(0, 3),
        lambda: T.triu_indices(3, 3, dtype=T.int32),
        lambda: T.tril_indices(-1, 3),
        lambda: T.tril_indices(3, 3, dtype=T.float32),
        lambda: T.triu_indices(4, 2, 10),
        lambda: T.tril_indices(3, 3, -10),
        lambda: T.tril_indices(3, -2),
    ]
    return CALLS


def _report(T) -> list[str]:
    lines = []
    for call in _calls(T):
        try:
            lines.append(repr(call()))
        except Exception as e:  # noqa: BLE001 - the error itself is compared
            lines.append(f"{type(e).__name__}: {e}")
    return lines


def test_every_call_prints_or_fails_as_pytorch():
    ours = _report(gtorch)
    theirs = oracle.computed("counting report", _report, torch)
    assert len(ours) == len(theirs)
    for i, (o, t) in enumerate(zip(ours, theirs, strict=True)):
        assert o == t, f"call {i}:\n gradshell: {o}\n   pytorch: {t}"


def test_results_are_not_differentiable():
    x = gtorch.tensor([0.5, 1.5, 2.5], requires_grad=True)
    assert not gtorch.histc(x, 3).requires_grad
    assert gtorch.count_nonzero(x).dtype == gtorch.int64
    assert not gtorch.bucketize(x, gtorch.tensor([1.0, 2.0])).requires_grad
