"""torch.histogram (issue 27: makemore part 3 draws activation histograms with it): counts,
weights, densities and bin edges as PyTorch's, for bin counts and given edges."""

from __future__ import annotations

import pytest

from gradshell import torch as gtorch

CASES = {
    "equal_values": lambda t: t.histogram(t.tensor([2.0, 2.0]), bins=2),
    "density": lambda t: t.histogram(t.tensor([1.0, 2.0, 1.0, 4.0]), bins=4, density=True),
    "edges_and_weights": lambda t: t.histogram(
        t.tensor([1.0, 2.0, 1.0, 4.0]),
        bins=t.tensor([0.0, 1.5, 3.0, 5.0]),
        weight=t.tensor([1.0, 2.0, 3.0, 4.0]),
    ),
    "range": lambda t: t.histogram(t.tensor([1.0, 2.0, 1.0, 9.0]), bins=3, range=(0.0, 4.0)),
    "method_density": lambda t: _seeded(t).randn(1000).histogram(bins=50, density=True),
    "tanh_default_bins": lambda t: t.histogram(_seeded(t).randn(3000).tanh(), density=True),
    "float64": lambda t: t.histogram(_seeded(t).rand(100, dtype=t.float64), bins=7),
}


def _seeded(t):
    t.manual_seed(0)
    return t


def _answer(fn):
    try:
        hist, edges = fn()
    except Exception as exc:  # noqa: BLE001 - the error is the answer compared
        return f"{type(exc).__name__}: {exc}"
    return hist.tolist(), edges.tolist(), str(hist.dtype)


@pytest.mark.parametrize("name", sorted(CASES))
def test_histogram_as_pytorch(real_torch, name):
    assert _answer(lambda: CASES[name](gtorch)) == _answer(lambda: CASES[name](real_torch))


def test_histogram_prints_as_pytorch(real_torch):
    want = repr(real_torch.histogram(real_torch.tensor([1.0, 2.0, 1.0, 4.0]), bins=2))
    assert repr(gtorch.histogram(gtorch.tensor([1.0, 2.0, 1.0, 4.0]), bins=2)) == want


def test_integer_input_is_refused_as_in_pytorch(real_torch):
    assert _answer(lambda: gtorch.histogram(gtorch.tensor([1, 2]), bins=2)) == _answer(
        lambda: real_torch.histogram(real_torch.tensor([1, 2]), bins=2)
    )
