"""t_, tril_, triu_ and fill_diagonal_ against PyTorch: values, node names, versions,
gradients and errors."""

from __future__ import annotations

import numpy as np
import pytest
from support.op_checks import check, check_error, gradcheck, gradgradcheck

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")

R = np.random.default_rng(5)
M = R.standard_normal((3, 4)).astype(np.float32)


def test_t_():
    check(lambda t, x: (x * 1).t_(), M)
    check(lambda t, x: (x * 1).t_(), M[0])
    check(lambda t, x: (x * 1)[0:2].t_(), M)
    check_error(lambda t, x: x.t_(), M)
    check_error(lambda t, x: (x * 1).reshape(2, 3, 2).t_(), M)


def test_t_changes_only_the_tensor_itself():
    x = gtorch.tensor(M)
    flat = x.view(12)
    assert x.t_() is x
    assert tuple(x.shape) == (4, 3) and not x.is_contiguous()
    assert tuple(flat.shape) == (12,)
    assert x._version == flat._version == 1
    x[0, 1] = 9.0  # still the same storage
    assert flat[4].item() == 9.0


def test_t_without_grad_keeps_the_node():
    a = gtorch.tensor(M, requires_grad=True)
    x = a * 1
    with gtorch.no_grad():
        x.t_()
    assert type(x.grad_fn).__name__ == "MulBackward0"


@pytest.mark.parametrize("name", ["tril_", "triu_"])
def test_triangles_in_place(name):
    check(lambda t, x: getattr(x * 1, name)(), M)
    check(lambda t, x: getattr(x * 1, name)(1), M)
    check(lambda t, x: getattr(x * 1, name)(-2), M)
    check_error(lambda t, x: getattr(x, name)(), M)
    check_error(lambda t, x: getattr(x * 1, name)(), M[0])


@pytest.mark.parametrize("shape", [(3, 4), (7, 3), (3, 3, 3), (2, 2)])
@pytest.mark.parametrize("wrap", [False, True])
def test_fill_diagonal_(shape, wrap):
    check(lambda t: t.zeros(shape).fill_diagonal_(2.5, wrap=wrap), backward=False)
    check(lambda t: t.zeros(shape, dtype=t.int64).fill_diagonal_(2.7, wrap), backward=False)


def test_fill_diagonal_errors():
    check_error(lambda t: t.zeros(2, 3, 4).fill_diagonal_(1.0))
    check_error(lambda t: t.zeros(3).fill_diagonal_(1.0))
    check_error(lambda t, x: x.fill_diagonal_(1.0), M)
    x = gtorch.tensor(M, requires_grad=True) * 1
    with pytest.raises(NotImplementedError, match="gradshell does not support fill_diagonal_"):
        x.fill_diagonal_(1.0)


def test_gradients_by_finite_differences():
    a = gtorch.tensor(R.standard_normal((3, 4)), requires_grad=True)
    for fn in (lambda a: (a * 1).t_() ** 2, lambda a: (a * 1).tril_(1), lambda a: (a * 1).triu_()):
        assert gradcheck(fn, a)
        assert gradgradcheck(fn, a)
