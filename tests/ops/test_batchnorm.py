"""F.batch_norm (gradshell/ops/batchnorm.py): training and evaluation, running statistics,
NativeBatchNormBackward0 gradients against PyTorch and finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from support.op_checks import Arg, check, check_error, gradcheck, gradgradcheck

from gradshell import torch as gtorch
from gradshell.ops.batchnorm import batch_norm

RNG = np.random.default_rng(1)


def _arr(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 4)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_matches_pytorch(real_torch, shape, training, affine):
    c = shape[1]
    stats = [Arg(_arr(c), requires_grad=False), Arg(np.abs(_arr(c)) + 0.5, requires_grad=False)]
    params = [_arr(c), _arr(c)] if affine else []

    def fn(t, x, rm, rv, w=None, b=None):
        return t.nn.functional.batch_norm(x, rm, rv, w, b, training, 0.2, 1e-3)

    check(fn, _arr(*shape) * 3 + 1, *stats, *params, rtol=1e-5, atol=1e-5, grad_atol=1e-4)


def test_batch_norm_updates_running_stats_as_pytorch(real_torch):
    torch = real_torch
    x = _arr(6, 3, 2) * 2 + 1
    got = []
    for lib in (gtorch, torch):
        rm, rv = lib.zeros(3), lib.ones(3)
        for momentum in (0.1, 0.5):
            lib.nn.functional.batch_norm(lib.tensor(x), rm, rv, training=True, momentum=momentum)
        got.append((rm.numpy().copy(), rv.numpy().copy()))
    for ours, theirs in zip(got[0], got[1], strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_batch_norm_without_running_stats(real_torch):
    check(
        lambda t, x, w, b: t.nn.functional.batch_norm(x, None, None, w, b, training=True),
        _arr(5, 2),
        _arr(2),
        _arr(2),
        rtol=1e-5,
        atol=1e-5,
        grad_atol=1e-4,
    )


def test_batch_norm_finite_differences():
    rng = np.random.default_rng(5)
    x = gtorch.tensor(rng.standard_normal((4, 2, 3)), requires_grad=True)
    w = gtorch.tensor(rng.standard_normal(2), requires_grad=True)
    b = gtorch.tensor(rng.standard_normal(2), requires_grad=True)
    gradcheck(lambda x, w, b: batch_norm(x, None, None, w, b, training=True), x, w, b)
    gradgradcheck(lambda x, w: batch_norm(x, None, None, w, None, training=True) ** 2, x, w)
    rm, rv = gtorch.zeros(2, dtype=gtorch.float64), gtorch.ones(2, dtype=gtorch.float64) * 2
    gradcheck(lambda x, w, b: batch_norm(x, rm, rv, w, b, training=False), x, w, b)


def test_batch_norm_errors(real_torch):
    check_error(
        lambda t, x, rm, rv: t.nn.functional.batch_norm(x, rm, rv, training=True),
        _arr(2, 4),
        Arg(_arr(3), requires_grad=False),
        Arg(_arr(3), requires_grad=False),
    )
    check_error(lambda t, x: t.nn.functional.batch_norm(x, None, None, training=True), _arr(1, 3))
    check_error(
        lambda t, x, w: t.nn.functional.batch_norm(x.double(), None, None, w, None, True),
        _arr(3, 2),
        _arr(2),
    )
