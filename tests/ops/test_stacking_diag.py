"""atleast_1d/2d/3d, hstack / vstack / row_stack / dstack / column_stack, diag,
diag_embed and trace against PyTorch: values, the nodes PyTorch records (CatBackward0 over
the atleast_nd views; DiagEmbedBackward0, DiagonalBackward0_copy, TraceBackward0),
gradients (finite differences in float64, first and second order) and errors."""

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
S = np.array(1.5)
V = R.standard_normal(3)
M = R.standard_normal((2, 3))
T = R.standard_normal((2, 3, 2))

STACKS = ["hstack", "vstack", "row_stack", "dstack", "column_stack"]


@pytest.mark.parametrize("name", STACKS)
def test_stacks_match_pytorch(name):
    for parts in ([V, V], [M, M], [S, S], [T, T], [V.astype(np.float32), M[0]]):
        check(lambda t, *ts, n=name: getattr(t, n)(list(ts)), *parts)
    check(lambda t, a, b, n=name: getattr(t, n)((a, b)), Arg(np.array([1, 2]), False), V[:2])


def test_mixed_shapes():
    check(lambda t, a, b: t.vstack([a, b]), V, M)
    check(lambda t, a, b: t.column_stack([a, b]), S, V[:1])
    check(lambda t, a, b: t.column_stack([a, b]), V, M.T)
    check(lambda t, a, b: t.hstack([a, b]), M, M[:, :1])


@pytest.mark.parametrize("name", STACKS)
def test_stack_errors(name):
    check_error(lambda t, n=name: getattr(t, n)([]))
    check_error(lambda t, a, n=name: getattr(t, n)(a), V)
    check_error(lambda t, a, b, n=name: getattr(t, n)([a, b]), V, T)


@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
def test_atleast(name):
    for x in (S, V, M, T):
        check(lambda t, a, n=name: getattr(t, n)(a), x)
    check(lambda t, a, b, n=name: getattr(t, n)(a, b), S, V)
    check(lambda t, a, b, n=name: getattr(t, n)([a, b]), S, M)


@settings(max_examples=10, deadline=None)
@given(
    x=hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=1, max_dims=2, min_side=0, max_side=4),
        elements=st.floats(-5, 5, width=32),
    ),
    offset=st.integers(-3, 3),
)
def test_diag_matches_pytorch(x, offset):
    check(lambda t, a: t.diag(a, offset), x)
    check(lambda t, a: a.diag(offset), x)


def test_diag_embed_and_trace():
    check(lambda t, a: t.diag_embed(a), M)
    check(lambda t, a: t.diag_embed(a, -1, 0, 2), M)
    check(lambda t, a: a.diag_embed(2, -1, 1), T)
    check(lambda t, a: t.diag_embed(a, 1), Arg(np.arange(3), False))
    check(lambda t, a: t.trace(a), M)
    check(lambda t, a: t.trace(a), R.standard_normal((5, 2)))
    check(lambda t, a: a.trace(), R.standard_normal((4, 4)).astype(np.float32))
    check(lambda t, a: t.trace(a), np.ones((2, 3), np.float16))
    check(lambda t, a: t.trace(a), Arg(np.arange(12, dtype=np.int8).reshape(3, 4), False))
    check(lambda t, a: t.trace(a), np.zeros((0, 3)))


def test_errors():
    check_error(lambda t, a: t.diag(a), np.zeros((2, 2, 2)))
    check_error(lambda t, a: t.diag(a), S)
    check_error(lambda t, a: t.diag_embed(a, 0, 1, 1), M)
    check_error(lambda t, a: t.diag_embed(a), S)
    check_error(lambda t, a: t.trace(a), V)
    check_error(lambda t, a: t.trace(a), np.zeros((2, 2, 2)))
    check_error(lambda t, a: t.trace(a), Arg(np.eye(2, dtype=bool), False))


def test_gradients_by_finite_differences():
    m = gtorch.tensor(R.standard_normal((3, 4)), requires_grad=True)
    v = gtorch.tensor(R.standard_normal(3), requires_grad=True)
    cases = [
        (lambda a: gtorch.diag(a, 1), m),
        (lambda a: gtorch.diag(a, -2), v),
        (lambda a: gtorch.diag_embed(a, 1, 0, 2), m),
        (gtorch.trace, m),
        (lambda a: gtorch.hstack([a, a * 2]), m),
        (lambda a: gtorch.dstack([a, a]), v),
        (lambda a: gtorch.column_stack([a, a]), v),
    ]
    for fn, x in cases:
        assert gradcheck(fn, x)
        assert gradgradcheck(fn, x)


def test_second_order_nodes():
    def grad_of(fn):
        def run(t, a):
            y = fn(t, a)
            return t.autograd.grad((y * y).sum(), a, create_graph=True)[0]

        return run

    check(grad_of(lambda t, a: t.diag(a)), M)
    check(grad_of(lambda t, a: t.diag(a)), V)
    check(grad_of(lambda t, a: t.diag_embed(a)), M)


def test_printed():
    assert repr(gtorch.diag(gtorch.tensor([1, 2, 3]))) == (
        "tensor([[1, 0, 0],\n        [0, 2, 0],\n        [0, 0, 3]])"
    )
    assert repr(gtorch.trace(gtorch.eye(3))) == "tensor(3.)"
