"""The further losses (kl_div/KLDivLoss, huber_loss/HuberLoss, soft_margin_loss,
margin_ranking_loss, cosine_embedding_loss, triplet_margin_loss, pairwise_distance and
their modules) against PyTorch: values, node names and next_functions, gradients, the
reductions (kl_div's 'batchmean' and its warning for 'mean'), reprs and errors; and their
gradients by float64 finite differences (first and second order)."""

from __future__ import annotations

import numpy as np
import pytest
from support.op_checks import Arg, check, check_error, gradcheck, gradgradcheck
from support.tutorials import printed

from gradshell import torch as gtorch

F = gtorch.nn.functional

RNG = np.random.default_rng(11)
X = RNG.standard_normal((3, 5)).astype(np.float32)
Y = RNG.standard_normal((3, 5)).astype(np.float32)
Z = RNG.standard_normal((3, 5)).astype(np.float32)
P = np.abs(RNG.standard_normal((3, 5))).astype(np.float32)
P[0, 1] = 0.0  # xlogy(0, 0) = 0
SIGNS = np.sign(RNG.standard_normal((3, 5))).astype(np.float32)
PAIR = np.array([1, -1, 1])

REDUCTIONS = ["mean", "sum", "none"]

CASES = {
    "kl_div": (lambda t, x, p, r: t.nn.functional.kl_div(x, p, reduction=r), X, Arg(P, False)),
    "kl_div_log": (
        lambda t, x, y, r: t.nn.functional.kl_div(x, y, reduction=r, log_target=True),
        X,
        Y,
    ),
    "huber": (lambda t, x, y, r: t.nn.functional.huber_loss(x, y, reduction=r), X * 2, Y),
    "huber_delta": (
        lambda t, x, y, r: t.nn.functional.huber_loss(x, y, reduction=r, delta=0.4),
        X,
        Y,
    ),
    "soft_margin": (
        lambda t, x, s, r: t.nn.functional.soft_margin_loss(x, s, reduction=r),
        X,
        Arg(SIGNS, False),
    ),
    "margin_ranking": (
        lambda t, x, y, s, r: t.nn.functional.margin_ranking_loss(x, y, s, 0.3, reduction=r),
        X,
        Y,
        Arg(SIGNS, False),
    ),
    "cosine_embedding": (
        lambda t, x, y, s, r: t.nn.functional.cosine_embedding_loss(x, y, s, 0.1, reduction=r),
        X,
        Y,
        Arg(PAIR, False),
    ),
    "triplet": (
        lambda t, a, p, n, r: t.nn.functional.triplet_margin_loss(a, p, n, reduction=r),
        X,
        Y,
        Z,
    ),
    "triplet_swap_p1": (
        lambda t, a, p, n, r: t.nn.functional.triplet_margin_loss(
            a, p, n, margin=0.5, p=1, swap=True, reduction=r
        ),
        X,
        Y,
        Z,
    ),
}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name, reduction):
    fn, *args = CASES[name]
    check(lambda t, *a: fn(t, *a, reduction), *args)
    wide = [
        Arg(a.array.astype(np.float64), a.requires_grad)
        if isinstance(a, Arg)
        else a.astype(np.float64)
        for a in args
    ]
    check(lambda t, *a: fn(t, *a, reduction), *wide)


def test_broadcast_targets_match_pytorch():
    check(lambda t, x, y: t.nn.functional.soft_margin_loss(x, y), X, Arg(SIGNS[0], False))
    check(lambda t, x, y: t.nn.functional.huber_loss(x, y), X[0], Y)
    check(lambda t, x, y: t.nn.functional.huber_loss(x, y, reduction="sum"), X, Y[0])
    check(lambda t, x, p: t.nn.functional.kl_div(x, p, reduction="sum"), X[0], Arg(P, False))


def test_kl_div_batchmean_and_unbatched():
    fn = lambda t, x, p: t.nn.functional.kl_div(x, p, reduction="batchmean")  # noqa: E731
    check(fn, X, Arg(P, False))
    check(fn, X[0], Arg(P[0], False))
    check(fn, np.array(-0.5, np.float32), Arg(np.array(0.25, np.float32), False))
    check(
        lambda t, x, y: t.nn.functional.kl_div(x, y, reduction="batchmean", log_target=True), X, Y
    )


@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance(keepdim):
    check(lambda t, a, b: t.nn.functional.pairwise_distance(a, b, keepdim=keepdim), X, Y)
    check(lambda t, a, b: t.nn.functional.pairwise_distance(a, b, 1.0, 0.0, keepdim), X, Y[0])
    check(lambda t, a, b: t.nn.functional.pairwise_distance(a, b), X[0], Y[0])
    check(
        lambda t, a, b: t.nn.functional.pairwise_distance(a, b),
        np.array(X[0, 0]),
        np.array(Y[0, 0]),
    )


ERRORS = [
    (lambda t, x, y: t.nn.functional.huber_loss(x, y, delta=0), X, Y),
    (lambda t, x, y: t.nn.functional.huber_loss(x, y, delta=-1), X, Y),
    (lambda t, x, y: t.nn.functional.soft_margin_loss(x, y), X, Y),
    (lambda t, x, y: t.nn.functional.soft_margin_loss(x[0], y.detach().sign()), X, Y),
    (lambda t, x, y: t.nn.functional.kl_div(x, y, reduction="bad"), X, Y),
    (lambda t, x, y: t.nn.functional.kl_div(x, y), X, np.ones((3, 5), np.int64)),
    (lambda t, x, y: t.nn.functional.margin_ranking_loss(x, y, t.ones(5)), X, Y),
    (lambda t, x, y: t.nn.functional.cosine_embedding_loss(x, y, t.ones(3, 5)), X, Y),
    (lambda t, x, y: t.nn.functional.cosine_embedding_loss(x, y, t.tensor(1)), X, Y),
    (lambda t, x, y: t.nn.functional.cosine_embedding_loss(x, y, t.ones(1)), X[0], Y[0]),
    (lambda t, x, y: t.nn.functional.triplet_margin_loss(x, y, t.ones(5)), X, Y),
    (lambda t, x, y: t.nn.functional.triplet_margin_loss(x, y, y, margin=0), X, Y),
    (lambda t, x, y: t.nn.TripletMarginLoss(margin=-1.0), X, Y),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_pytorch(i):
    fn, *args = ERRORS[i]
    check_error(fn, *args)


@pytest.mark.parametrize("reduction", ["none", "sum", "batchmean"])
def test_kl_div_with_a_target_that_requires_grad(reduction):
    # xlogy(target, target) then has a node (XlogyBackward0); a zero target gives NaN
    fn = lambda t, x, p: t.nn.functional.kl_div(x, p, reduction=reduction)  # noqa: E731
    check(fn, X, P)
    check(fn, X.astype(np.float64), P.astype(np.float64))
    rng = np.random.default_rng(8)
    x = gtorch.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    p = gtorch.tensor(rng.uniform(0.2, 2.0, (3, 4)), requires_grad=True)
    assert gradcheck(lambda a, b: fn(gtorch, a, b), x, p)
    assert gradgradcheck(lambda a, b: fn(gtorch, a, b), x, p)


SCRIPT = """
import warnings
nn, F = torch.nn, torch.nn.functional
def graph(f):
    if f is None:
        return None
    return (f.name().split(':')[-1], [graph(g) for g, _ in f.next_functions])
print(nn.KLDivLoss(), nn.KLDivLoss(reduction='batchmean', log_target=True), nn.HuberLoss(),
      nn.HuberLoss(delta=2.0), nn.SoftMarginLoss(), nn.MarginRankingLoss(0.5),
      nn.CosineEmbeddingLoss(), nn.TripletMarginLoss(), nn.TripletMarginLoss(swap=True, p=1),
      nn.PairwiseDistance())
m = nn.TripletMarginLoss(swap=True, p=1)
print(m.margin, m.p, m.eps, m.swap, m.reduction, nn.PairwiseDistance().norm, nn.HuberLoss().delta)
print(nn.KLDivLoss(reduction='batchmean', log_target=True).log_target, nn.KLDivLoss(size_average=False).reduction)
x = torch.tensor([[-1.2, -0.4, -2.0], [-0.1, -3.0, -0.7]], requires_grad=True)
p = torch.tensor([[0.2, 0.5, 0.3], [0.0, 0.1, 0.9]])
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter('always')
    for loss in [nn.KLDivLoss(), nn.KLDivLoss(reduction='batchmean'), nn.KLDivLoss(reduction='sum'),
                 nn.KLDivLoss(reduction='batchmean', log_target=True)]:
        y = loss(x, p)
        y.backward()
        print(y, y.grad_fn, y.grad_fn.next_functions, x.grad)
        x.grad = None
    print([str(m.message) for m in w])
y = nn.KLDivLoss(reduction='none')(x, p)
print(y, graph(y.grad_fn), graph(nn.KLDivLoss(reduction='batchmean', log_target=True)(x, p).grad_fn))
t = torch.tensor([[0.5, -1.0, 2.5], [1.0, 1.0, -4.0]])
for loss in [nn.HuberLoss(), nn.HuberLoss(delta=0.5, reduction='sum'), nn.SoftMarginLoss(),
             nn.SmoothL1Loss(beta=0.5)]:
    y = loss(x, t)
    y.backward()
    print(y, y.grad_fn.next_functions, x.grad)
    x.grad = None
a = torch.tensor([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]], requires_grad=True)
b = torch.tensor([[0.5, 2.5, -0.5], [0.3, 1.0, 2.0]], requires_grad=True)
for y in [nn.MarginRankingLoss(0.5)(a, b, torch.tensor([[1., -1., 1.], [-1., 1., 1.]])),
          nn.CosineEmbeddingLoss(0.2)(a, b, torch.tensor([1, -1])),
          nn.TripletMarginLoss()(a, b, x), nn.TripletMarginLoss(swap=True, p=1)(a, b, x),
          nn.PairwiseDistance()(a, b), F.pairwise_distance(a, b, keepdim=True)]:
    y.sum().backward()
    print(y, graph(y.grad_fn), a.grad, b.grad)
    a.grad = b.grad = None
"""


def test_script_matches_pytorch(real_torch):
    assert printed(SCRIPT, gtorch) == printed(SCRIPT, real_torch)


def _away_from_kinks(a):
    return np.where(np.abs(a) < 0.05, 0.3, a)


@pytest.mark.parametrize("reduction", ["mean", "none"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_by_finite_differences(name, reduction):
    fn, *args = CASES[name]
    tensors, fixed = [], {}
    for i, a in enumerate(args):
        if isinstance(a, Arg):
            fixed[i] = gtorch.tensor(
                a.array.astype(np.float64) if a.array.dtype.kind == "f" else a.array
            )
        else:
            tensors.append(i)

    def f(*ts):
        it = iter(ts)
        full = [fixed[i] if i in fixed else next(it) for i in range(len(args))]
        return fn(gtorch, *full, reduction)

    rng = np.random.default_rng(5)
    inputs = [
        gtorch.tensor(_away_from_kinks(rng.standard_normal(args[i].shape)), requires_grad=True)
        for i in tensors
    ]
    assert gradcheck(f, *inputs)
    assert gradgradcheck(f, *inputs)


def test_torch_pairwise_distance_matches_pytorch():
    check(lambda t, a, b: t.pairwise_distance(a, b, 3.0, 1e-3, True), X, Y)


FLOAT16 = """
F = torch.nn.functional
x = torch.linspace(-3, 3, 12).view(3, 4).half().requires_grad_()
t = torch.linspace(2, -1, 12).view(3, 4).half()
for f in [lambda a: F.huber_loss(a, t), lambda a: F.huber_loss(a, t, reduction='none', delta=0.5),
          lambda a: F.soft_margin_loss(a, t.sign()), lambda a: F.soft_margin_loss(a, t.sign(), reduction='sum'),
          lambda a: F.kl_div(a, t.abs(), reduction='batchmean'), lambda a: F.margin_ranking_loss(a, t, t.sign()),
          lambda a: F.triplet_margin_loss(a, t, t * 2), lambda a: F.pairwise_distance(a, t)]:
    y = f(x)
    y.backward(torch.ones_like(y))
    print(y, x.grad)
    x.grad = None
"""


def test_float16_matches_pytorch_to_the_last_bit(real_torch):
    assert printed(FLOAT16, gtorch) == printed(FLOAT16, real_torch)
