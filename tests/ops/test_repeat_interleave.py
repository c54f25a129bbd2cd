"""torch.repeat_interleave / Tensor.repeat_interleave against PyTorch: an int of repeats
(the unsqueeze-expand-clone-flatten chain PyTorch records), a tensor of repeats
(IndexSelectBackward0), dim=None or an int, output_size, the one-argument form, errors
and gradients (finite differences in float64, first and second order)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from support.op_checks import Arg, check, check_error, gradcheck, gradgradcheck

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")

R = np.random.default_rng(0)
M = R.standard_normal((2, 3))


@settings(max_examples=12, deadline=None)
@given(
    x=hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3),
        elements=st.floats(-5, 5, width=32),
    ),
    repeats=st.integers(0, 3),
    data=st.data(),
)
def test_int_repeats(x, repeats, data):
    dim = data.draw(st.sampled_from([None, *range(-max(x.ndim, 1), max(x.ndim, 1))]))
    if x.ndim == 0 and dim is not None:  # PyTorch unsqueezes at dim + 1, out of range
        check_error(lambda t, a: t.repeat_interleave(a, repeats, dim=dim), x)
        return
    check(lambda t, a: t.repeat_interleave(a, repeats, dim=dim), x)
    check(lambda t, a: a.repeat_interleave(repeats, dim), x)


@settings(max_examples=12, deadline=None)
@given(
    x=hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3),
        elements=st.floats(-5, 5, width=32),
    ),
    data=st.data(),
)
def test_tensor_repeats(x, data):
    dim = data.draw(st.sampled_from([None, *range(x.ndim)]))
    n = x.size if dim is None else x.shape[dim]
    reps = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    check(lambda t, a, r: t.repeat_interleave(a, r, dim=dim), x, Arg(reps, False))
    check(lambda t, a, r: a.repeat_interleave(r[:1], dim=dim), x, Arg(reps, False))


def test_forms_and_dtypes():
    check(lambda t, a: t.repeat_interleave(a, 2), Arg(np.array([2, 3]), False))
    check(
        lambda t, a, r: a.repeat_interleave(r),
        Arg(np.array([1, 2]), False),
        Arg(np.array([1, 2]), False),
    )
    check(lambda t, r: t.repeat_interleave(r), Arg(np.array([2, 0, 1]), False))
    check(lambda t, a, r: t.repeat_interleave(a, r, dim=1), M, Arg(np.array(2), False))
    check(lambda t, a, r: t.repeat_interleave(a, r), M, Arg(np.arange(6, dtype=np.int32), False))
    check(lambda t, a: t.repeat_interleave(a, 3, dim=1, output_size=9), M)
    check(
        lambda t, a, r: t.repeat_interleave(a, r, dim=0, output_size=3),
        M,
        Arg(np.array([1, 2]), False),
    )
    check(lambda t, a: t.repeat_interleave(a, 2), np.array([1.0, 2.0], np.float16))
    check(lambda t, a: t.repeat_interleave(a, 2, 0), Arg(np.array([True, False]), False))
    check(lambda t, a: t.repeat_interleave(a, 0, dim=1), M)


def test_errors():
    check_error(
        lambda t, a, r: t.repeat_interleave(a, r, dim=-1), np.array(1.0), Arg(np.array(2), False)
    )
    check_error(lambda t, a: t.repeat_interleave(a, -1), M)
    check_error(lambda t, a, r: t.repeat_interleave(a, r, dim=0), M, Arg(np.array([-1, 1]), False))
    check_error(lambda t, a, r: t.repeat_interleave(a, r, dim=0), M, Arg(np.array([[1, 1]]), False))
    check_error(
        lambda t, a, r: t.repeat_interleave(a, r, dim=0), M, Arg(np.array([1, 2, 3]), False)
    )
    check_error(
        lambda t, a, r: t.repeat_interleave(a, r, dim=0), M, Arg(np.array([1.0, 1.0]), False)
    )
    check_error(lambda t, a: t.repeat_interleave(a, 2, dim=0, output_size=5), M)
    check_error(
        lambda t, a, r: t.repeat_interleave(a, r, dim=0, output_size=5),
        M,
        Arg(np.array([1, 2]), False),
    )
    check_error(lambda t, a: t.repeat_interleave(a, 2, dim=2), M)
    check_error(lambda t, r: t.repeat_interleave(r), Arg(np.array(2), False))
    check_error(lambda t, r: t.repeat_interleave(r), Arg(np.array([2.0]), False))


def test_gradients_by_finite_differences():
    x = gtorch.tensor(M, requires_grad=True)
    reps = gtorch.tensor([2, 0, 1])
    for fn in (
        lambda a: gtorch.repeat_interleave(a, 2),
        lambda a: gtorch.repeat_interleave(a, 3, dim=1),
        lambda a: a.repeat_interleave(reps, dim=1),
        lambda a: a.repeat_interleave(gtorch.tensor([1, 2, 0, 0, 1, 3])),
    ):
        assert gradcheck(fn, x)
        assert gradgradcheck(fn, x)


def test_second_order_nodes():
    def run(t, a, r):
        y = a.repeat_interleave(r, dim=1)
        return t.autograd.grad((y * y).sum(), a, create_graph=True)[0]

    check(run, M, Arg(np.array([1, 2, 0]), False))


def test_copy_of_an_expanded_tensor_is_row_major():
    # repeat_interleave clones an expanded tensor: PyTorch lays the copy out row-major
    check(lambda t, a: a.unsqueeze(1).expand(2, 2, 3).clone().stride(), M, backward=False)
    check(lambda t, a: a[:, :1].expand(2, 3).clone().stride(), M, backward=False)
    check(lambda t, a: a.t().clone().stride(), M, backward=False)
