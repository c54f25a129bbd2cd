"""torch.linalg.inv / inverse (gradshell/ops/inverse.py) and the one-sided and in-place
clamps (gradshell/ops/clamping.py), against PyTorch and finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from support.op_checks import check, check_error, gradcheck, gradgradcheck

from gradshell import torch as gtorch
from gradshell.ops.inverse import inv

RNG = np.random.default_rng(2)


def _well_conditioned(*shape):
    n = shape[-1]
    return (RNG.standard_normal(shape) + 3 * np.eye(n)).astype(np.float32)


@pytest.mark.parametrize("shape", [(2, 2), (3, 3), (2, 4, 4)])
def test_inv_matches_pytorch(real_torch, shape):
    a = _well_conditioned(*shape)
    check(lambda t, x: t.linalg.inv(x), a, rtol=1e-5, atol=1e-6, grad_rtol=1e-4, grad_atol=1e-5)
    check(lambda t, x: t.inverse(x), a, rtol=1e-5, atol=1e-6, grad_rtol=1e-4, grad_atol=1e-5)
    check(lambda t, x: x.inverse(), a, rtol=1e-5, atol=1e-6, grad_rtol=1e-4, grad_atol=1e-5)


SINGULAR = [
    np.array([[1.0, 2.0], [2.0, 4.0]], np.float32),
    np.zeros((2, 2), np.float32),
    np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], np.float32),
    np.zeros((2, 3, 3), np.float32),
    np.zeros(3, np.float32),
    np.zeros((2, 3), np.float32),
    np.zeros((2, 2), np.int64),
    np.eye(2, dtype=np.float16),
]


@pytest.mark.parametrize("a", SINGULAR, ids=range(len(SINGULAR)))
def test_inv_errors(real_torch, a):
    check_error(lambda t, x: t.linalg.inv(x), a)


def test_inv_error_type_prints_as_pytorch():
    with pytest.raises(RuntimeError) as info:
        gtorch.linalg.inv(gtorch.zeros(2, 2))
    assert (
        f"{type(info.value).__module__}.{type(info.value).__qualname__}" == "torch._C._LinAlgError"
    )
    assert isinstance(info.value, gtorch.linalg.LinAlgError)


def test_inv_ex(real_torch):
    check(
        lambda t, x: t.linalg.inv_ex(x),
        _well_conditioned(3, 3),
        rtol=1e-5,
        atol=1e-6,
        grad_atol=1e-5,
    )


def test_inv_finite_differences():
    a = gtorch.tensor(_well_conditioned(3, 3).astype(np.float64), requires_grad=True)
    gradcheck(inv, a)
    gradgradcheck(inv, a)


@pytest.mark.parametrize(
    "fn",
    [
        lambda t, x: t.clamp_min(x, 0.1),
        lambda t, x: t.clamp_max(x, 0.1),
        lambda t, x: x.clamp_min(-0.5),
        lambda t, x: x.clamp_max(0.5),
        lambda t, x: (x * 1).clamp_min_(0.0),
        lambda t, x: (x * 1).clamp_max_(0.0),
        lambda t, x: (x * 1).clamp_(min=-0.2, max=0.3),
        lambda t, x: (x * 1).clip_(-0.2, 0.3),
        lambda t, x: t.clamp_min(x, t.zeros(5)),
        lambda t, x: t.clamp_max(x, x.detach() * 0 + 0.25),
    ],
)
def test_one_sided_clamps(real_torch, fn):
    check(fn, np.linspace(-1, 1, 5).astype(np.float32))


def test_clamp_min_on_integers_and_errors(real_torch):
    check(lambda t, x: t.clamp_min(x, 1.5), np.arange(4), backward=False)
    check_error(lambda t, x: t.clamp_min(x), np.ones(2, np.float32))
    check_error(lambda t, x: t.clamp_max(x), np.ones(2, np.float32))
