"""sort / argsort / msort, topk, kthvalue, unique and unique_consecutive against PyTorch:
values, node names and gradients, and the indices PyTorch's CPU kernels give equal
elements (sort without stable=True, topk's partial sort and nth_element paths,
kthvalue's quickselect), over many random ties, NaN, integer, bool and float16 inputs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from support.op_checks import Arg, check, check_error, gradcheck, gradgradcheck

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")

# few distinct values: most slices hold ties, and NaN sorts as the largest
_TIED = hnp.arrays(
    np.float32,
    hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6),
    elements=st.sampled_from([0.0, 1.0, -1.0, 2.5, float("nan")]),
)


@settings(max_examples=15, deadline=None)
@given(x=_TIED, descending=st.booleans(), stable=st.sampled_from([None, False, True]))
def test_sort_matches_pytorch(x, descending, stable):
    kw = {} if stable is None else {"stable": stable}
    check(lambda t, a: t.sort(a, dim=-1, descending=descending, **kw), x)
    check(lambda t, a: a.argsort(dim=0, descending=descending, **kw), x, backward=False)


@settings(max_examples=15, deadline=None)
@given(x=_TIED, data=st.data())
def test_topk_and_kthvalue_match_pytorch(x, data):
    n = x.shape[-1]
    k = data.draw(st.integers(0, n))
    largest, ordered = data.draw(st.booleans()), data.draw(st.booleans())
    check(lambda t, a: t.topk(a, k, -1, largest, ordered), x)
    if k:
        check(lambda t, a: a.kthvalue(k, -1, keepdim=ordered), x)


_DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8"]


def _digest(t, result):
    """A long result's indices as one number (a weighted sum: any reordering changes it),
    so the recording of PyTorch's answers stays small."""
    idx = result.indices if hasattr(result, "indices") else result
    weights = t.arange(idx.numel()).view(idx.shape) + 1
    return (idx * weights * weights).sum()


@pytest.mark.parametrize("dtype", _DTYPES)
def test_ties_across_sizes_and_dtypes(dtype):
    rng = np.random.default_rng(sorted(_DTYPES).index(dtype))
    for n in (5, 16, 17, 40, 300):
        a = rng.integers(0, 4, (2, n)).astype(dtype)
        if dtype.startswith("float"):
            a[a == 3] = np.nan
        x = Arg(a, False)
        # short rows compare the results themselves, long ones their indices' digest
        out = (lambda t, r: r) if n <= 17 else _digest
        for descending in (False, True):
            check(
                lambda t, v, d=descending, o=out: o(t, t.sort(v, descending=d)), x, backward=False
            )
        for k in (1, 3, n // 2, n):
            for largest in (True, False):
                for ordered in (True, False):
                    check(
                        lambda t, v, a=(k, 1, largest, ordered), o=out: o(t, t.topk(v, *a)),
                        x,
                        backward=False,
                    )
            check(lambda t, v, k=k, o=out: o(t, t.kthvalue(v, k)), x, backward=False)


def test_topk_partial_sort_on_a_long_row():
    # k * 64 <= n: PyTorch takes std::partial_sort, whose heap reorders equal values
    rng = np.random.default_rng(7)
    x = Arg(rng.integers(0, 20, (3, 1000)).astype(np.float32), False)
    for k in (1, 5, 15, 16, 17, 200):
        check(lambda t, v, k=k: _digest(t, t.topk(v, k)), x, backward=False)
        check(
            lambda t, v, k=k: _digest(t, t.topk(v, k, largest=False, sorted=False)),
            x,
            backward=False,
        )
    check(lambda t, v: _digest(t, t.sort(v)), x, backward=False)


@pytest.mark.parametrize("n", [32767, 32768])
def test_long_integer_rows(n):
    # from 32768 elements PyTorch sorts a 1-D integer tensor ascending with a (stable)
    # radix sort, else with std::sort; the indices are compared through a checksum
    a = Arg(np.random.default_rng(n).integers(0, 10, n), False)

    check(lambda t, v: _digest(t, t.sort(v)), a, backward=False)
    check(lambda t, v: _digest(t, t.sort(v, descending=True)), a, backward=False)


def test_out_is_refused():
    x = gtorch.ones(3)
    with pytest.raises(NotImplementedError, match=r"torch\.sort\(out=\.\.\.\)"):
        gtorch.sort(x, out=(gtorch.ones(3), gtorch.ones(3)))
    with pytest.raises(NotImplementedError, match="topk"):
        gtorch.topk(x, 1, out=(gtorch.ones(1), gtorch.ones(1)))


def test_bool_and_zero_dim_and_empty():
    b = Arg(np.array([True, False, True, False, True] * 4), False)
    check(lambda t, v: t.sort(v), b, backward=False)
    check(lambda t, v: t.sort(v, descending=True, stable=True), b, backward=False)
    check(lambda t, v: t.unique(v, return_inverse=True, return_counts=True), b, backward=False)
    s = np.array(3.0)
    check(lambda t, v: t.sort(v), s)
    check(lambda t, v: t.topk(v, 1), s)
    check(lambda t, v: t.topk(v, 0), s)
    check(lambda t, v: t.kthvalue(v, 1), s)
    check(lambda t, v: t.msort(v), s)
    check(lambda t, v: t.sort(v), np.zeros((2, 0), np.float32))
    check(lambda t, v: t.topk(v, 0), np.zeros((2, 0), np.float32))


def test_msort_and_float64():
    rng = np.random.default_rng(1)
    check(lambda t, v: t.msort(v), rng.standard_normal((4, 3)))
    check(lambda t, v: v.msort(), rng.standard_normal((4, 3)).astype(np.float32))


def test_errors():
    x = np.ones((3, 4), np.float32)
    check_error(lambda t, v: t.sort(v, 2), x)
    check_error(lambda t, v: t.topk(v, 5), x)
    check_error(lambda t, v: t.topk(v, -1), x)
    check_error(lambda t, v: t.topk(v, 2, dim=3), x)
    check_error(lambda t, v: t.kthvalue(v, 5), x)
    check_error(lambda t, v: t.kthvalue(v, 0), x)
    check_error(lambda t, v: t.kthvalue(v, 1), np.zeros((2, 0), np.float32))
    check_error(lambda t, v: t.topk(v, 1), Arg(np.array([True, False]), False))
    check_error(lambda t, v: t.kthvalue(v, 1), Arg(np.array([True, False]), False))
    check_error(lambda t, v: t.unique(v, dim=2), x)
    check_error(lambda t, v: t.unique(v, dim=0), np.zeros((2, 0), np.float32))


def test_gradients_by_finite_differences():
    rng = np.random.default_rng(3)
    x = gtorch.tensor(rng.permutation(12).reshape(3, 4) / 7.0, requires_grad=True)
    for fn in (
        lambda v: gtorch.sort(v, 1, descending=True).values,
        lambda v: gtorch.sort(v, 0, stable=True).values,
        lambda v: gtorch.msort(v),
        lambda v: gtorch.topk(v, 2).values,
        lambda v: gtorch.topk(v, 2, 0, largest=False, sorted=False).values,
        lambda v: gtorch.kthvalue(v, 2, 1).values,
        lambda v: gtorch.kthvalue(v, 3, 0, keepdim=True).values,
    ):
        assert gradcheck(fn, x)
        assert gradgradcheck(fn, x)


def test_second_order_graph():
    def fn(t, v):
        y = t.sort(v, 1).values
        (g,) = t.autograd.grad((y * y).sum(), v, create_graph=True)
        return g

    check(fn, np.random.default_rng(0).standard_normal((3, 4)))
    check(
        lambda t, v: t.autograd.grad((v.topk(2).values ** 2).sum(), v, create_graph=True)[0],
        np.random.default_rng(1).standard_normal((3, 4)),
    )
    check(
        lambda t, v: t.autograd.grad((v.kthvalue(2).values ** 2).sum(), v, create_graph=True)[0],
        np.random.default_rng(2).standard_normal((3, 4)),
    )


def test_unique_matches_pytorch():
    nan = float("nan")
    x = np.array([nan, 1.0, nan, 2.0, 1.0, nan, -0.0, 0.0], np.float32)
    for sorted_ in (True, False):
        check(
            lambda t, v, s=sorted_: t.unique(v, sorted=s, return_inverse=True, return_counts=True),
            x,
            backward=False,
        )
    check(lambda t, v: v.unique(), np.array([[3.0, 1.0], [1.0, 2.0]]), backward=True)
    check(lambda t, v: t.unique(v, return_inverse=True), Arg(np.array(3), False))
    rows = Arg(np.array([[3, 1], [2, 1], [3, 1], [0, 9]]), False)
    for dim in (0, 1, -1):
        check(
            lambda t, v, d=dim: t.unique(v, dim=d, return_inverse=True, return_counts=True),
            rows,
            backward=False,
        )
        check(
            lambda t, v, d=dim: t.unique_consecutive(
                v, return_inverse=True, return_counts=True, dim=d
            ),
            rows,
            backward=False,
        )
    check(
        lambda t, v: t.unique(v, dim=0, return_inverse=True, return_counts=True),
        np.array([[nan, 1.0], [nan, 1.0], [0.0, 1.0]], np.float32),
        backward=False,
    )
    check(
        lambda t, v: t.unique_consecutive(v, return_inverse=True, return_counts=True),
        np.array([nan, nan, 1.0, 1.0, 2.0, 1.0], np.float32),
        backward=False,
    )
    check(lambda t, v: t.unique(v, dim=0, return_counts=True), np.zeros((0, 3), np.float32))


def test_unique_has_no_derivative():
    for fn in (
        lambda t, v: t.unique(v),
        lambda t, v: t.unique(v, dim=0),
        lambda t, v: t.unique_consecutive(v),
        lambda t, v: t.unique_consecutive(v, dim=1),
    ):
        check(fn, np.array([[1.0, 1.0], [2.0, 1.0]]))


@settings(max_examples=10, deadline=None)
@given(
    x=hnp.arrays(
        np.int64,
        hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5),
        elements=st.integers(-3, 3),
    ),
    flags=st.tuples(st.booleans(), st.booleans()),
)
def test_unique_random(x, flags):
    inv, counts = flags
    a = Arg(x, False)
    check(lambda t, v: t.unique(v, return_inverse=inv, return_counts=counts), a, backward=False)
    check(
        lambda t, v: t.unique_consecutive(v, return_inverse=inv, return_counts=counts),
        a,
        backward=False,
    )
    if x.size:
        check(lambda t, v: t.unique(v, return_inverse=inv, dim=x.ndim - 1), a, backward=False)


def test_printed_results():
    x = gtorch.tensor([[3, 1, 2], [0, 5, 4]])
    assert repr(x.sort(dim=1, descending=True)) == (
        "torch.return_types.sort(\nvalues=tensor([[3, 2, 1],\n        [5, 4, 0]]),\n"
        "indices=tensor([[0, 2, 1],\n        [1, 2, 0]]))"
    )
    assert repr(x.float().topk(1)) == (
        "torch.return_types.topk(\nvalues=tensor([[3.],\n        [5.]]),\n"
        "indices=tensor([[0],\n        [1]]))"
    )
