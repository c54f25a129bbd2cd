"""Reductions: prod, max/min (whole, with dim → torch.return_types, binary), amax/amin,
argmax/argmin, var/std (unbiased, correction), logsumexp, cumsum, cumprod, all/any,
norm(p, dim), dist — values, gradients (ties included), node names, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from support.op_checks import Arg, check, check_error, gradcheck, gradgradcheck

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")

TIES = st.sampled_from([0.0, 1.0, -1.0, 2.0])
# Away from float32's underflow range, where PyTorch's kernels (scaled norms, Welford
# variance) and plain formulas legitimately differ.
VALUES = st.one_of(
    TIES, st.floats(-2, 2, allow_nan=False, width=32).filter(lambda v: v == 0 or abs(v) > 1e-3)
)


@st.composite
def array_and_dim(draw, min_dims=1, elements=VALUES, nonempty=True):
    shape = draw(
        hnp.array_shapes(min_dims=min_dims, max_dims=3, min_side=1 if nonempty else 0, max_side=4)
    )
    a = draw(hnp.arrays(np.float32, shape, elements=elements))
    dim = draw(st.integers(-len(shape), len(shape) - 1)) if shape else 0
    return a, dim


KEEP = st.booleans()


@settings(max_examples=25, deadline=None)
@given(ad=array_and_dim(min_dims=0), keepdim=KEEP)
def test_whole_and_dim_reductions(ad, keepdim):
    a, d = ad
    check(lambda t, x: x.prod(), a)
    check(lambda t, x: t.prod(x, d, keepdim=keepdim), a)
    check(lambda t, x: x.max(), a)
    check(lambda t, x: x.min(), a)
    check(lambda t, x: x.max(d, keepdim), a)
    check(lambda t, x: t.min(x, dim=d, keepdim=keepdim), a)
    check(lambda t, x: x.amax(d, keepdim), a)
    check(lambda t, x: x.amin(), a)
    check(lambda t, x: x.argmax(), a)
    check(lambda t, x: x.argmin(d, keepdim=keepdim), a)
    check(lambda t, x: x.logsumexp(d, keepdim), a)
    check(lambda t, x: x.cumsum(d), a)
    check(lambda t, x: x.all(), a)
    check(lambda t, x: x.any(d, keepdim), a)


@settings(max_examples=25, deadline=None)
@given(ad=array_and_dim(min_dims=1), keepdim=KEEP, correction=st.sampled_from([0, 1, 2]))
def test_var_std(ad, keepdim, correction):
    a, d = ad
    assume(a.shape[d] > 2)  # enough degrees of freedom (and PyTorch's warning otherwise)
    check(lambda t, x: x.var(), a)
    check(lambda t, x: x.std(d), a)
    check(lambda t, x: t.var(x, d, keepdim=keepdim, correction=correction), a)
    check(lambda t, x: x.std(dim=d, unbiased=False, keepdim=keepdim), a)
    check(lambda t, x: x.var(False), a)


@settings(max_examples=25, deadline=None)
@given(ad=array_and_dim(min_dims=1, elements=st.floats(0.5, 1.5, width=32) | TIES))
def test_cumprod(ad):
    a, d = ad
    check(lambda t, x: x.cumprod(d), a, grad_rtol=1e-4, grad_atol=1e-5)


@settings(max_examples=20, deadline=None)
@given(ad=array_and_dim(min_dims=1), keepdim=KEEP)
def test_tuple_dims(ad, keepdim):
    a, d = ad
    dims = tuple(sorted({d % a.ndim, 0}))
    check(lambda t, x: x.amax(dims, keepdim), a)
    check(lambda t, x: x.amin(dims), a)
    check(lambda t, x: x.logsumexp(dims, keepdim), a)
    check(lambda t, x: x.all(dims, keepdim), a)
    if a.shape[0] > 2:
        check(lambda t, x: x.var(dims, keepdim=keepdim), a)


@pytest.mark.parametrize("p", [1, 2, 3, float("inf"), 0.5])
@settings(max_examples=10, deadline=None)
@given(ad=array_and_dim(min_dims=1))
def test_norm_and_dist(p, ad):
    a, d = ad
    check(lambda t, x: x.norm(p), a)
    check(lambda t, x: x.norm(p=p, dim=d), a)
    b = np.flip(a, d).copy() if p != 0.5 else a + 1
    check(lambda t, x, y: t.dist(x, y, p), a, b)
    check(lambda t, x, y: t.dist(x, y), a, b)


def test_ties_share_the_gradient():
    x = np.array([[1.0, 2.0, 2.0, 0.5], [3.0, 3.0, 3.0, -1.0]], np.float32)
    check(lambda t, a: a.max(), x)
    check(lambda t, a: a.amax(1), x)
    check(lambda t, a: a.amin(0), x)
    check(lambda t, a: a.max(1), x)
    check(lambda t, a: a.min(dim=0), x)


def test_zeros_in_prod_and_cumprod():
    x = np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 2.0], [1.0, 2.0, 3.0]])
    check(lambda t, a: a.prod(), x)
    check(lambda t, a: a.prod(1), x)
    check(lambda t, a: a.prod(0, keepdim=True), x)
    check(lambda t, a: a.cumprod(1), x)
    check(lambda t, a: a.cumprod(0), x)


def test_nan_propagates_through_max():
    x = np.array([1.0, np.nan, 3.0], np.float32)
    check(lambda t, a: a.max(), x)
    check(lambda t, a: a.max(0), x)
    check(lambda t, a: a.argmax(), x)


def test_return_types():
    x = gtorch.tensor([[1.0, 3.0], [2.0, 0.0]])
    r = x.max(1)
    assert type(r).__name__ == "max"
    values, indices = r
    assert values is r.values and indices is r.indices
    assert isinstance(r, tuple) and len(r) == 2
    t = torch.tensor([[1.0, 3.0], [2.0, 0.0]])
    assert repr(r) == repr(t.max(1))
    assert repr(x.min(0)) == repr(t.min(0))
    assert repr(gtorch.max(x, 1, keepdim=True)) == repr(torch.max(t, 1, keepdim=True))


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.bool_, np.int16])
def test_integer_dtypes(dtype):
    a = Arg(np.array([[1, 0, 2], [3, 1, 1]]).astype(dtype), False)
    check(lambda t, x: x.prod(), a)
    check(lambda t, x: x.prod(1), a)
    check(lambda t, x: x.cumsum(0), a)
    check(lambda t, x: x.cumprod(1), a)
    check(lambda t, x: x.all(), a)
    check(lambda t, x: x.any(1), a)
    check(lambda t, x: x.max(), a)
    check(lambda t, x: x.amax(0), a)
    check(lambda t, x: x.logsumexp(1), a)
    if dtype is not np.bool_:
        check(lambda t, x: x.max(1), a)
        check(lambda t, x: x.argmax(), a)
        check(lambda t, x: x.sum(), a)


@pytest.mark.parametrize(
    "bad",
    [
        lambda t, x: t.empty(0).max(),
        lambda t, x: t.empty(0, 3).max(0),
        lambda t, x: x.max(2),
        lambda t, x: t.empty(0).amax(),
        lambda t, x: t.empty(0).argmax(),
        lambda t, x: x.bool().argmax(),
        lambda t, x: x.long().var(),
        lambda t, x: x.long().std(1),
        lambda t, x: x.prod(3),
        lambda t, x: x.long().norm(),
        lambda t, x: t.dist(x, x[:2]),
        lambda t, x: t.dist(x.long(), x.long()),
        lambda t, x: x.cumsum(5),
        lambda t, x: x.logsumexp(4),
    ],
)
def test_errors(bad):
    check_error(bad, np.ones((3, 4), np.float32))


def test_var_warns_without_degrees_of_freedom():
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        v = gtorch.ones(1).var()
    assert np.isnan(v.item())
    check(lambda t, x: x.var(), np.ones(1, np.float32))
    check(lambda t, x: x.var(correction=13), np.arange(12, dtype=np.float32), backward=False)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.prod(),
        lambda x: x.prod(1),
        lambda x: x.max(),
        lambda x: x.max(1)[0],
        lambda x: x.amax(0),
        lambda x: x.var(1),
        lambda x: x.std(),
        lambda x: x.std(0, correction=0),
        lambda x: x.logsumexp(1),
        lambda x: x.cumsum(1),
        lambda x: x.cumprod(1),
        lambda x: x.norm(3, dim=1),
        lambda x: gtorch.dist(x, x.flip(0) * 2),
        lambda x: gtorch.dist(x, x.flip(0) * 2, 1),
    ],
)
def test_gradcheck(fn):
    rng = np.random.default_rng(5)
    x = gtorch.tensor(
        rng.uniform(0.5, 1.5, (3, 4)) * rng.choice([-1, 1], (3, 4)), requires_grad=True
    )
    assert gradcheck(fn, x)
    assert gradgradcheck(fn, x)


def test_gradcheck_with_zeros():
    x = gtorch.tensor([[0.0, 2.0, 3.0], [1.5, -1.0, 0.5]], dtype=gtorch.float64, requires_grad=True)
    assert gradcheck(lambda a: a.prod(1), x)
    assert gradcheck(lambda a: a.cumprod(1), x)
    assert gradgradcheck(lambda a: a.cumprod(1), x)
    assert gradgradcheck(lambda a: a.prod(), x)
