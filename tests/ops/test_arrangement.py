"""broadcast_to, broadcast_tensors, meshgrid, tile, ravel and atleast_1d/2d/3d against
PyTorch (values, node chains, gradients, errors, the meshgrid warning), and their
gradients by finite differences."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from support import oracle
from support.op_checks import check, check_error, gradcheck, gradgradcheck

from gradshell import torch as gtorch
from gradshell.core import warn_once

torch = pytest.importorskip("torch")

R = np.random.default_rng(7)
A3 = R.standard_normal(3).astype(np.float32)
B2 = R.standard_normal(2).astype(np.float32)
C4 = R.standard_normal(4).astype(np.float32)
M23 = R.standard_normal((2, 3)).astype(np.float32)
COL = R.standard_normal((3, 1)).astype(np.float32)
ROW = R.standard_normal((1, 4)).astype(np.float32)


def test_broadcast_to():
    check(lambda t, x: t.broadcast_to(x, (2, 3, 4)), COL)
    check(lambda t, x: x.broadcast_to((3, 4)), COL)
    check(lambda t, x: x.broadcast_to((3, -1)), COL)
    check_error(lambda t, x: t.broadcast_to(x, (2,)), A3)


def test_broadcast_tensors():
    check(lambda t, x, y: t.broadcast_tensors(x, y), COL, ROW)
    check(lambda t, x, y: t.broadcast_tensors(x * 1, y * 1, x), COL, ROW)
    check(lambda t, x, y: t.broadcast_tensors(x * 1, y * 1), COL, COL)
    check_error(lambda t, x, y: t.broadcast_tensors(x, y), A3, B2)
    x = gtorch.tensor(COL)
    assert gtorch.broadcast_tensors(x)[0] is x


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid(indexing):
    check(lambda t, a, b: t.meshgrid(a, b, indexing=indexing), A3, B2)
    check(lambda t, a, b, c: t.meshgrid(a, b, c, indexing=indexing), A3, B2, C4)
    check(lambda t, a, b: t.meshgrid([a, b], indexing=indexing), A3, B2)
    check(lambda t, a: t.meshgrid(a, indexing=indexing), A3)
    check(lambda t, a, b: t.meshgrid(a, b, indexing=indexing), np.array(2.0, np.float32), B2)


def test_meshgrid_strides_are_a_view_of_the_inputs():
    a, b = gtorch.tensor(A3), gtorch.tensor(B2)
    assert gtorch.meshgrid(a, b, indexing="ij")[0].stride() == (1, 0)
    assert gtorch.meshgrid(a, b, indexing="xy")[0].stride() == (0, 1)


def test_meshgrid_errors():
    check_error(lambda t, a, b: t.meshgrid(a, b, indexing="foo"), A3, B2)
    check_error(lambda t, a, b: t.meshgrid(a, b.double(), indexing="ij"), A3, B2)
    check_error(lambda t: t.meshgrid(indexing="ij"))
    check_error(lambda t: t.meshgrid([], indexing="ij"))


def _warnings_of_meshgrid_twice(T) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = T.tensor([1.0, 2.0])
        T.meshgrid(a, a)
        T.meshgrid(a, a)
    return [f"{w.category.__name__}: {w.message}" for w in caught]


def test_meshgrid_without_indexing_warns_once_per_process():
    saved = warn_once.given()
    warn_once.restore(frozenset())
    try:
        ours = _warnings_of_meshgrid_twice(gtorch)
    finally:
        warn_once.restore(saved)
    theirs = oracle.computed("meshgrid warning", _warnings_of_meshgrid_twice, torch)
    assert len(ours) == 1
    # PyTorch warns once per process: a recording made after an earlier warning is empty
    assert theirs in ([], ours)
    assert ours[0] == "UserWarning: " + warn_once_message()


def warn_once_message() -> str:
    from gradshell.ops.arrangement import MESHGRID_INDEXING

    return MESHGRID_INDEXING


def test_tile():
    check(lambda t, x: x.tile(2, 1), M23)
    check(lambda t, x: x.tile(2), M23)
    check(lambda t, x: t.tile(x, (2, 2, 2)), M23)
    check(lambda t, x: t.tile(x, (2, 2)), A3)
    check(lambda t, x: x.tile(()), M23)
    check_error(lambda t, x: x.tile(-1), A3)


def test_ravel():
    check(lambda t, x: x.ravel(), M23)
    check(lambda t, x: t.ravel(x.t()), M23)
    check(lambda t, x: t.ravel(x), np.array(3.0, np.float32))
    m = gtorch.tensor(M23)
    assert gtorch.ravel(m)._base is m


@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
def test_atleast(name):
    for arr in (
        np.array(2.0, np.float32),
        A3,
        M23,
        R.standard_normal((2, 2, 2)).astype(np.float32),
    ):
        check(lambda t, x, name=name: getattr(t, name)(x * 1), arr)
    check(lambda t, x, y: getattr(t, name)(x, y), np.array(2.0, np.float32), A3)
    check(lambda t, x, y: getattr(t, name)([x, y]), M23, A3)
    x = gtorch.tensor(R.standard_normal((2, 2, 2)))
    assert getattr(gtorch, name)(x) is x


def test_gradients_by_finite_differences():
    a = gtorch.tensor(R.standard_normal(3), requires_grad=True)
    b = gtorch.tensor(R.standard_normal(2), requires_grad=True)
    m = gtorch.tensor(R.standard_normal((2, 3)), requires_grad=True)
    for fn, args in [
        (lambda a, b: gtorch.meshgrid(a, b, indexing="xy"), (a, b)),
        (lambda a, b: gtorch.broadcast_tensors(a.unsqueeze(1), b), (a, b)),
        (lambda m: m.tile(2, 2), (m,)),
        (lambda m: m.t().ravel() ** 2, (m,)),
        (lambda a: gtorch.atleast_3d(a) ** 2, (a,)),
    ]:
        assert gradcheck(fn, *args)
        assert gradgradcheck(fn, *args)
