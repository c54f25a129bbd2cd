"""cummax, cummin, median() and nanmedian() against PyTorch (values, indices, ties, NaN,
node names, gradients) and by finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from support import oracle
from support.op_checks import check, check_error, gradcheck, gradgradcheck

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")

NAN = float("nan")
TIES = np.array([[1.0, 3, 2, 3], [NAN, 0, 5, 1]], np.float32)

# small integers make ties (and NaN makes propagation) common
ARRAYS = hnp.arrays(
    np.float32,
    hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
    elements=st.sampled_from([-1.0, 0.0, 1.0, 2.0, NAN]),
)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@settings(max_examples=15, deadline=None)
@given(x=ARRAYS, dim=st.integers(-1, 0))
def test_running_extrema_match_pytorch(name, x, dim):
    check(lambda t, a: getattr(t, name)(a, dim), x)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_running_extrema_forms(name):
    check(lambda t, a: getattr(a, name)(1), TIES)
    check(lambda t, a: getattr(t, name)(a, 0).values, TIES)
    check(lambda t: getattr(t, name)(t.tensor([1, 3, 2]), 0))
    check(lambda t: getattr(t, name)(t.tensor(3.0), 0), backward=False)
    check_error(lambda t, a: getattr(t, name)(a, 2), TIES)


def _printouts(T) -> list[str]:
    a = T.tensor([[1.0, 3, 2, 3], [NAN, 0, 5, 1]])
    return [repr(T.cummax(a, 1)), repr(a.cummin(0))]


def test_result_printout():
    assert _printouts(gtorch) == oracle.computed("cummax printout", _printouts, torch)


@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize(
    "values",
    [[1.0, 3, 3, 2], [1.0, 2, 2, 3], [NAN, 1.0, 2.0], [2.0, NAN, 2.0], [4.0, 1.0], [NAN, NAN]],
)
def test_median_of_all(name, values):
    check(lambda t, a: getattr(t, name)(a), np.array(values, np.float32))
    check(lambda t, a: getattr(a, name)(), np.array(values, np.float64).reshape(-1, 1))


def test_median_integers_and_empty():
    check(lambda t: t.tensor([5, 1, 4]).median())
    check(lambda t: t.median(t.tensor([], dtype=t.float32)), backward=False)


def test_median_with_dim_is_not_supported_yet():
    x = gtorch.tensor(TIES)
    with pytest.raises(NotImplementedError, match="gradshell does not support torch.median"):
        x.median(1)


def test_gradients_by_finite_differences():
    x = gtorch.tensor(np.random.default_rng(2).standard_normal((3, 4)), requires_grad=True)
    for fn in (
        lambda x: gtorch.cummax(x, 1).values,
        lambda x: x.cummin(0)[0],
        gtorch.median,
        gtorch.nanmedian,
    ):
        assert gradcheck(fn, x)
        assert gradgradcheck(fn, x)
