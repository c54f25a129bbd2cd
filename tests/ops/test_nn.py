"""torch.nn.functional ops (gradshell/ops/nn.py): activations, softmax/log_softmax, dropout,
linear, the losses and one_hot — values, gradients, node names, saved tensors and errors
against PyTorch, and finite differences (first and second order)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from support.op_checks import Arg, check, check_error, gradcheck, gradgradcheck

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")

VALUES = st.one_of(
    st.sampled_from([0.0, 1.0, -1.0, 0.5]),
    st.floats(-4, 4, allow_nan=False, width=32).filter(lambda v: v == 0 or abs(v) > 1e-3),
)
SHAPES = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)
ARRAYS = hnp.arrays(np.float32, SHAPES, elements=VALUES)

ACTIVATIONS = {
    "relu": lambda F, x: F.relu(x),
    "leaky_relu": lambda F, x: F.leaky_relu(x),
    "leaky_relu_0.2": lambda F, x: F.leaky_relu(x, 0.2),
    "gelu": lambda F, x: F.gelu(x),
    "gelu_tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "elu": lambda F, x: F.elu(x),
    "elu_alpha": lambda F, x: F.elu(x, alpha=0.5),
    "silu": lambda F, x: F.silu(x),
    "sigmoid": lambda F, x: F.sigmoid(x),
    "tanh": lambda F, x: F.tanh(x),
    "softplus": lambda F, x: F.softplus(x),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@settings(max_examples=12, deadline=None)
@given(x=ARRAYS)
def test_activations(name, x):
    # gelu's tanh form subtracts nearly equal numbers (1 + tanh(inner) with tanh near -1 for
    # x around -4): there a one-ulp difference between NumPy's and PyTorch's float32 tanh
    # moves the gradient by about 1e-3 relative, so its gradient gets a wider tolerance.
    loose = {"grad_rtol": 2e-3, "grad_atol": 1e-5} if name == "gelu_tanh" else {}
    check(lambda t, a: ACTIVATIONS[name](t.nn.functional, a), x, **loose)


@pytest.mark.parametrize("name", ["leaky_relu", "gelu", "elu", "silu"])
def test_activations_reject_integers(name):
    check_error(lambda t, a: ACTIVATIONS[name](t.nn.functional, a), np.arange(4))


def test_gelu_bad_approximation():
    check_error(lambda t, a: t.nn.functional.gelu(a, approximate="x"), np.ones(2, np.float32))


@pytest.mark.parametrize("name", ["leaky_relu", "elu", "silu", "relu"])
def test_inplace_activations(name):
    fn = {
        "relu": lambda t, a: t.nn.functional.relu(a * 1, inplace=True),
        "leaky_relu": lambda t, a: t.nn.functional.leaky_relu(a * 1, 0.1, inplace=True),
        "elu": lambda t, a: t.nn.functional.elu(a * 1, inplace=True),
        "silu": lambda t, a: t.nn.functional.silu(a * 1, inplace=True),
    }[name]
    check(fn, np.linspace(-2, 2, 7).astype(np.float32))


@settings(max_examples=25, deadline=None)
@given(x=ARRAYS, data=st.data())
def test_softmax_log_softmax(x, data):
    d = data.draw(st.integers(-x.ndim, x.ndim - 1))
    check(lambda t, a: t.nn.functional.softmax(a, d), x)
    check(lambda t, a: t.nn.functional.log_softmax(a, dim=d), x)
    check(lambda t, a: a.softmax(d), x)
    check(lambda t, a: t.nn.functional.softmax(a, d, dtype=t.float64), x)


def test_softmax_implicit_dim_warns():
    for nd in (1, 2, 3):
        x = np.arange(float(2**nd)).reshape((2,) * nd).astype(np.float32)
        check(lambda t, a: t.nn.functional.softmax(a), x)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        gtorch.nn.functional.softmax(gtorch.ones(2, 2))


@pytest.mark.parametrize("dim", [0, 1])
def test_softmax_rejects_integers(dim):
    check_error(lambda t, a: t.nn.functional.softmax(a, dim), np.arange(12).reshape(3, 4))
    check_error(lambda t, a: t.nn.functional.log_softmax(a, dim), np.arange(12).reshape(3, 4))


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_linear_all_input_ranks(data):
    nd = data.draw(st.integers(1, 3))
    shape = data.draw(hnp.array_shapes(min_dims=nd, max_dims=nd, max_side=3))
    x = data.draw(hnp.arrays(np.float32, shape, elements=VALUES))
    out = data.draw(st.integers(1, 3))
    w = data.draw(hnp.arrays(np.float32, (out, shape[-1]), elements=VALUES))
    b = data.draw(hnp.arrays(np.float32, (out,), elements=VALUES))
    check(lambda t, a, c: t.nn.functional.linear(a, c), x, w)
    check(lambda t, a, c, e: t.nn.functional.linear(a, c, e), x, w, b)
    check(lambda t, a, c, e: t.nn.functional.linear(a, c, e), Arg(x, False), w, b)


def test_linear_errors():
    x = np.ones((3, 4), np.float32)
    check_error(lambda t, a: t.nn.functional.linear(a, t.ones(5, 3)), x)
    check_error(lambda t, a: t.nn.functional.linear(a, a.double()), x)
    check_error(lambda t, a: t.nn.functional.linear(a, t.ones(5, 4), t.ones(3)), x)


def _pair(shape_strategy=SHAPES, lo=-3, hi=3):
    elems = st.floats(lo, hi, allow_nan=False, width=32)
    return shape_strategy.flatmap(
        lambda s: st.tuples(
            hnp.arrays(np.float32, s, elements=elems), hnp.arrays(np.float32, s, elements=elems)
        )
    )


REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@settings(max_examples=15, deadline=None)
@given(pair=_pair())
def test_regression_losses(reduction, pair):
    x, y = pair
    F = "nn.functional"
    _ = F
    check(lambda t, a, b: t.nn.functional.mse_loss(a, b, reduction=reduction), x, y)
    check(lambda t, a, b: t.nn.functional.l1_loss(a, b, reduction=reduction), x, y)
    check(lambda t, a, b: t.nn.functional.smooth_l1_loss(a, b, reduction=reduction), x, y)
    check(lambda t, a, b: t.nn.functional.smooth_l1_loss(a, b, reduction=reduction, beta=0.5), x, y)
    check(lambda t, a, b: t.nn.functional.mse_loss(a, b, reduction=reduction), x, Arg(y, False))


def test_regression_losses_broadcast_with_a_warning():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    y = np.ones(4, np.float32)
    check(lambda t, a, b: t.nn.functional.mse_loss(a, b), x, Arg(y, False))
    check(lambda t, a, b: t.nn.functional.mse_loss(a, b), y, Arg(x, False))
    check(lambda t, a, b: t.nn.functional.l1_loss(a, b), x, y)
    with pytest.warns(UserWarning, match=r"Using a target size \(torch.Size\(\[4\]\)\)"):
        gtorch.nn.functional.mse_loss(gtorch.tensor(x), gtorch.tensor(y))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@settings(max_examples=15, deadline=None)
@given(pair=_pair(lo=-4, hi=4), data=st.data())
def test_binary_cross_entropy(reduction, pair, data):
    logits, t_raw = pair
    probs = (1 / (1 + np.exp(-logits))).astype(np.float32)
    target = (1 / (1 + np.exp(-t_raw))).astype(np.float32)
    if data.draw(st.booleans()):
        target = np.round(target).astype(np.float32)
    F = "torch.nn.functional"
    _ = F
    check(
        lambda t, p, q: t.nn.functional.binary_cross_entropy(p, q, reduction=reduction),
        probs,
        target,
    )
    check(
        lambda t, z, q: t.nn.functional.binary_cross_entropy_with_logits(z, q, reduction=reduction),
        logits,
        target,
    )
    w = np.linspace(0.5, 1.5, logits.size).reshape(logits.shape).astype(np.float32)
    check(
        lambda t, p, q, c: t.nn.functional.binary_cross_entropy(
            p, q, weight=c, reduction=reduction
        ),
        probs,
        target,
        Arg(w, False),
    )
    pw = np.float32(2.0) * np.ones(logits.shape[-1:], np.float32)
    check(
        lambda t, z, q, c, e: t.nn.functional.binary_cross_entropy_with_logits(
            z, q, c, reduction=reduction, pos_weight=e
        ),
        logits,
        target,
        Arg(w, False),
        Arg(pw, False),
    )


def test_binary_cross_entropy_clamps_logs_at_minus_100():
    p = np.array([0.0, 1.0, 0.5, 1e-30], np.float32)
    q = np.array([1.0, 0.0, 0.5, 1.0], np.float32)
    check(lambda t, a, b: t.nn.functional.binary_cross_entropy(a, b), p, q)


@st.composite
def classification(draw, max_classes=5):
    n = draw(st.integers(1, 6))
    c = draw(st.integers(1, max_classes))
    logits = draw(hnp.arrays(np.float32, (n, c), elements=VALUES))
    target = draw(hnp.arrays(np.int64, (n,), elements=st.integers(0, c - 1)))
    return logits, target


@pytest.mark.parametrize("reduction", REDUCTIONS)
@settings(max_examples=20, deadline=None)
@given(case=classification(), data=st.data())
def test_cross_entropy_and_nll_with_class_indices(reduction, case, data):
    logits, target = case
    c = logits.shape[1]
    tgt = Arg(target, False)
    check(lambda t, a, b: t.nn.functional.cross_entropy(a, b, reduction=reduction), logits, tgt)
    check(
        lambda t, a, b: t.nn.functional.nll_loss(a.log_softmax(1), b, reduction=reduction),
        logits,
        tgt,
    )
    w = data.draw(hnp.arrays(np.float32, (c,), elements=st.floats(0.25, 2, width=32)))
    check(
        lambda t, a, b, e: t.nn.functional.cross_entropy(a, b, weight=e, reduction=reduction),
        logits,
        tgt,
        Arg(w, False),
    )
    ignore = int(target[0])
    if (target != ignore).any() or reduction != "mean":
        check(
            lambda t, a, b: t.nn.functional.cross_entropy(
                a, b, ignore_index=ignore, reduction=reduction
            ),
            logits,
            tgt,
        )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@settings(max_examples=15, deadline=None)
@given(case=classification())
def test_cross_entropy_with_probabilities(reduction, case):
    logits, target = case
    probs = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    check(
        lambda t, a, b: t.nn.functional.cross_entropy(a, b, reduction=reduction),
        logits,
        probs.astype(np.float32),
    )


def test_cross_entropy_other_ranks():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(4).astype(np.float32)
    check(lambda t, a, b: t.nn.functional.cross_entropy(a, b), x, Arg(np.array(2), False))
    x3 = rng.standard_normal((2, 3, 4)).astype(np.float32)
    t3 = rng.integers(0, 3, (2, 4))
    check(lambda t, a, b: t.nn.functional.cross_entropy(a, b), x3, Arg(t3, False))
    check(lambda t, a, b: t.nn.functional.nll_loss(a, b, reduction="none"), x3, Arg(t3, False))


@pytest.mark.parametrize(
    "bad",
    [
        lambda F, x, t: F.cross_entropy(x, t.tensor([0.0, 1.0, 2.0])),
        lambda F, x, t: F.cross_entropy(x, t.tensor([0, 1])),
        lambda F, x, t: F.cross_entropy(x, t.tensor([0, 1, 4])),
        lambda F, x, t: F.cross_entropy(x, t.tensor([0, 1, -5])),
        lambda F, x, t: F.cross_entropy(x.long(), t.tensor([0, 1, 2])),
        lambda F, x, t: F.cross_entropy(x, x[:2]),
        lambda F, x, t: F.cross_entropy(x, t.zeros(3, 1, dtype=t.long)),
        lambda F, x, t: F.nll_loss(x, t.tensor([0, 1])),
        lambda F, x, t: F.nll_loss(x, t.tensor([0, 1, 2], dtype=t.int32)),
        lambda F, x, t: F.mse_loss(x, x[:2]),
        lambda F, x, t: F.mse_loss(x, x, reduction="avg"),
        lambda F, x, t: F.l1_loss(x, x[:2]),
        lambda F, x, t: F.smooth_l1_loss(x, x, beta=-1),
        lambda F, x, t: F.binary_cross_entropy(x.sigmoid(), x[:2].sigmoid()),
        lambda F, x, t: F.binary_cross_entropy(x, x.sigmoid()),
        lambda F, x, t: F.binary_cross_entropy(x.sigmoid(), x.long()),
        lambda F, x, t: F.binary_cross_entropy_with_logits(x, x[:2]),
        lambda F, x, t: F.binary_cross_entropy_with_logits(x, x.long()),
        lambda F, x, t: F.dropout(x, 1.5),
        lambda F, x, t: F.one_hot(x),
        lambda F, x, t: F.one_hot(t.tensor([-1])),
        lambda F, x, t: F.one_hot(t.tensor([3]), 2),
        lambda F, x, t: F.one_hot(t.tensor([], dtype=t.long)),
    ],
)
def test_errors(bad):
    x = np.linspace(-2, 2, 12).reshape(3, 4).astype(np.float32)
    check_error(lambda t, a: bad(t.nn.functional, a, t), x)


def test_one_hot():
    idx = np.array([[0, 2], [1, 1]])
    check(lambda t, a: t.nn.functional.one_hot(a), Arg(idx, False))
    check(lambda t, a: t.nn.functional.one_hot(a, 5), Arg(idx, False))


def test_dropout_train_and_eval():
    x = gtorch.ones(1000, requires_grad=True)
    y = gtorch.nn.functional.dropout(x, 0.25)
    kept = y.detach().numpy()
    assert set(np.unique(kept)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.6 < (kept > 0).mean() < 0.9
    assert y.grad_fn.name() == "MulBackward0"
    assert [n is None for n, _ in y.grad_fn.next_functions] == [False, True]
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), kept)
    assert gtorch.nn.functional.dropout(x, 0.5, training=False) is x
    assert gtorch.nn.functional.dropout(x, 0.0) is x
    assert (gtorch.nn.functional.dropout(x, 1.0).detach().numpy() == 0).all()


def test_dropout_draws_pytorchs_mask_after_the_same_seed():
    torch.manual_seed(5)
    theirs = torch.nn.functional.dropout(torch.ones(4, 6), 0.3)
    gtorch.manual_seed(5)
    ours = gtorch.nn.functional.dropout(gtorch.ones(4, 6), 0.3)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, y: gtorch.nn.functional.leaky_relu(x, 0.1) * y,
        lambda x, y: gtorch.nn.functional.gelu(x) * y,
        lambda x, y: gtorch.nn.functional.gelu(x, approximate="tanh") * y,
        lambda x, y: gtorch.nn.functional.elu(x) * y,
        lambda x, y: gtorch.nn.functional.silu(x) * y,
        lambda x, y: gtorch.nn.functional.softmax(x, 1) * y,
        lambda x, y: gtorch.nn.functional.log_softmax(x, 0) * y,
        lambda x, y: gtorch.nn.functional.linear(x, y, y[:, 0]),
        lambda x, y: gtorch.nn.functional.linear(x, y),
        lambda x, y: gtorch.nn.functional.mse_loss(x, y),
        lambda x, y: gtorch.nn.functional.smooth_l1_loss(x, y, reduction="sum"),
        lambda x, y: gtorch.nn.functional.binary_cross_entropy(x.sigmoid(), y.sigmoid()),
        lambda x, y: gtorch.nn.functional.binary_cross_entropy_with_logits(x, y.sigmoid()),
        lambda x, y: gtorch.nn.functional.binary_cross_entropy_with_logits(
            x, y.sigmoid(), pos_weight=gtorch.tensor([2.0, 0.5, 1.0], dtype=gtorch.float64)
        ),
        lambda x, y: gtorch.nn.functional.cross_entropy(x * y, gtorch.tensor([2, 0])),
        lambda x, y: gtorch.nn.functional.cross_entropy(x, y.softmax(1)),
        lambda x, y: gtorch.nn.functional.nll_loss(x, gtorch.tensor([1, 2]), reduction="sum"),
    ],
)
def test_gradcheck(fn):
    rng = np.random.default_rng(17)
    x = gtorch.tensor(rng.uniform(-1.5, 1.5, (2, 3)), requires_grad=True)
    y = gtorch.tensor(rng.uniform(-1.5, 1.5, (2, 3)), requires_grad=True)
    assert gradcheck(fn, x, y)
    assert gradgradcheck(fn, x, y)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@settings(max_examples=15, deadline=None)
@given(case=classification(), eps=st.sampled_from([0.1, 0.25, 1.0]), data=st.data())
def test_cross_entropy_label_smoothing(reduction, case, eps, data):
    logits, target = case
    c = logits.shape[1]
    tgt = Arg(target, False)
    F = "nn.functional"
    _ = F
    check(
        lambda t, a, b: t.nn.functional.cross_entropy(
            a, b, reduction=reduction, label_smoothing=eps
        ),
        logits,
        tgt,
    )
    w = data.draw(hnp.arrays(np.float32, (c,), elements=st.floats(0.25, 2, width=32)))
    check(
        lambda t, a, b, e: t.nn.functional.cross_entropy(
            a, b, weight=e, reduction=reduction, label_smoothing=eps
        ),
        logits,
        tgt,
        Arg(w, False),
    )
    ignore = int(target[0])
    if (target != ignore).any():
        check(
            lambda t, a, b: t.nn.functional.cross_entropy(
                a, b, ignore_index=ignore, reduction=reduction, label_smoothing=eps
            ),
            logits,
            tgt,
        )
    probs = (np.exp(logits) / np.exp(logits).sum(1, keepdims=True)).astype(np.float32)
    check(
        lambda t, a, b: t.nn.functional.cross_entropy(
            a, b, reduction=reduction, label_smoothing=eps
        ),
        logits,
        probs,
    )


def test_label_smoothing_range():
    x = np.ones((2, 3), np.float32)
    check_error(
        lambda t, a: t.nn.functional.cross_entropy(a, t.tensor([0, 1]), label_smoothing=1.5), x
    )
