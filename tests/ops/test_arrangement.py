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


def test_diff():
    check(lambda t, x: t.diff(x), M23)
    check(lambda t, x: x.diff(n=2, dim=0), R.standard_normal((4, 3)).astype(np.float32))
    check(lambda t, x, p: t.diff(x, dim=0, prepend=p), M23, ROW[:, :3])
    check(lambda t, x, p: t.diff(x, append=p.double()), M23, COL[:2])
    check(lambda t, x: t.diff(x, n=5), M23)
    check(lambda t, x: t.diff(x, n=0), M23)
    check(lambda t: t.diff(t.tensor([True, False, True])))
    check(lambda t: t.diff(t.tensor([1, 5, 2])))
    check_error(lambda t, x: t.diff(x, n=-1), M23)
    check_error(lambda t: t.diff(t.tensor(1.0)))
    check_error(lambda t, x: t.diff(x, prepend=t.zeros(3)), M23)


SPLITS = [3, 5, (1,), [3, 1], [-1], [1, -2], [0, 9]]


@pytest.mark.parametrize("spec", SPLITS)
def test_tensor_split(spec):
    m = R.standard_normal((3, 4)).astype(np.float32)
    check(lambda t, x: t.tensor_split(x, spec, dim=1), m)
    check(lambda t, x: x.tensor_split(spec), m)


def test_tensor_split_by_tensor_and_errors():
    check(lambda t, x: t.tensor_split(x, t.tensor([1, 2])), M23)
    check(lambda t, x: t.tensor_split(x, t.tensor(2), 1), M23)
    check_error(lambda t, x: t.tensor_split(x, 0), M23)
    check_error(lambda t: t.tensor_split(t.tensor(1.0), 1))


def test_vsplit_hsplit_dsplit():
    cube = R.standard_normal((2, 2, 4)).astype(np.float32)
    check(lambda t, x: x.vsplit(2), cube)
    check(lambda t, x: t.vsplit(x, [1]), M23)
    check(lambda t, x: x.hsplit(3), M23)
    check(lambda t, x: t.hsplit(x, 3), A3)
    check(lambda t, x: t.dsplit(x, [1, 3]), cube)
    check(lambda t, x: x.dsplit(2), cube)
    check_error(lambda t, x: x.vsplit(2), R.standard_normal((3, 4)).astype(np.float32))
    check_error(lambda t, x: x.hsplit(2), M23)
    check_error(lambda t, x: x.vsplit(2), A3)
    check_error(lambda t, x: x.dsplit(2), M23)
    check_error(lambda t: t.tensor(1.0).hsplit(1))


@pytest.mark.parametrize("k", [-5, -1, 0, 1, 2, 3, 4, 6])
def test_rot90(k):
    check(lambda t, x: x.rot90(k), M23)
    check(lambda t, x: t.rot90(x, k, [2, 0]), R.standard_normal((2, 3, 4)).astype(np.float32))
    m = gtorch.tensor(M23).rot90(k)
    real = torch.tensor(M23).rot90(k) if not oracle.is_proxy(torch) else None
    if real is not None:
        assert m.stride() == real.stride()


def test_rot90_errors():
    check_error(lambda t, x: x.rot90(1, [0, 0]), M23)
    check_error(lambda t, x: x.rot90(1, [0]), M23)
    check_error(lambda t, x: x.rot90(), A3)
    check_error(lambda t, x: x.rot90(1, [0, 2]), M23)


def test_more_gradients_by_finite_differences():
    m = gtorch.tensor(R.standard_normal((3, 4)), requires_grad=True)
    for fn in (
        lambda m: gtorch.diff(m, 2) ** 2,
        lambda m: gtorch.diff(m, dim=0, prepend=m[:1] * 2) ** 2,
        lambda m: m.rot90(3, [1, 0]) ** 2,
        lambda m: m.tensor_split([1, 3], 1)[1] ** 2,
    ):
        assert gradcheck(fn, m)
        assert gradgradcheck(fn, m)


def test_cartesian_prod():
    check(lambda t, a, b: t.cartesian_prod(a, b), A3, B2)
    check(lambda t, a, b, c: t.cartesian_prod(a, b, c), A3, B2, C4)
    check(lambda t: t.cartesian_prod(t.tensor([1, 2]), t.tensor([3, 4, 5])))
    check_error(lambda t: t.cartesian_prod(t.tensor([1, 2]), t.tensor([3.0])))
    check_error(lambda t: t.cartesian_prod(t.zeros(2, 2)))
    a = gtorch.tensor(A3)
    assert gtorch.cartesian_prod(a) is a


@pytest.mark.parametrize("r", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations(r, with_replacement):
    check(lambda t, a: t.combinations(a, r, with_replacement), C4)
    check(lambda t: t.combinations(t.tensor([1, 2, 3]), r, with_replacement=with_replacement))


def test_combinations_errors():
    check_error(lambda t: t.combinations(t.zeros(2, 2)))
    check_error(lambda t: t.combinations(t.tensor([1, 2, 3]), -1))


def test_product_gradients_by_finite_differences():
    a = gtorch.tensor(R.standard_normal(4), requires_grad=True)
    b = gtorch.tensor(R.standard_normal(3), requires_grad=True)
    assert gradcheck(lambda a, b: gtorch.cartesian_prod(a, b) ** 2, a, b)
    assert gradgradcheck(lambda a, b: gtorch.cartesian_prod(a, b) ** 2, a, b)
    assert gradcheck(lambda a: gtorch.combinations(a, 3) ** 2, a)
    assert gradgradcheck(lambda a: gtorch.combinations(a, 2, True) ** 2, a)


def test_block_diag():
    check(lambda t, a, b, c: t.block_diag(a, b, c), M23, A3, np.array(2.0, np.float32))
    check(lambda t, a, b: t.block_diag(a, b.double()), M23, COL)
    check(lambda t, a, b: t.block_diag(a, b), np.zeros((0, 2), np.float32), ROW)
    check(lambda t: t.block_diag(t.tensor([[1, 2], [3, 4]]), t.tensor([5.0, 6]), t.tensor(7)))
    check(lambda t: t.block_diag(t.tensor([True]), t.tensor([2])))
    check(lambda t: t.block_diag(), backward=False)
    check_error(lambda t: t.block_diag(t.zeros(2, 2, 2)))


def test_block_diag_gradients_by_finite_differences():
    a = gtorch.tensor(R.standard_normal((2, 3)), requires_grad=True)
    b = gtorch.tensor(R.standard_normal(2), requires_grad=True)
    assert gradcheck(lambda a, b: gtorch.block_diag(a, b) ** 2, a, b)
    assert gradgradcheck(lambda a, b: gtorch.block_diag(a, b) ** 2, a, b)
