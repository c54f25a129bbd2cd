"""The op library "on the device": with the CuPy test double holding every array, each op
of issue 6 (forward and backward) must run without a stray NumPy call or hidden host round
trip, and still give PyTorch's values, gradients and node names; an MLP trains on it with
every optimiser."""

from __future__ import annotations

import numpy as np
import pytest
from support.fake_cupy import DeviceArray, fake_cupy
from support.op_checks import Arg, check

from gradshell import torch as gtorch
from gradshell.core import backends
from gradshell.core.device import Device
from gradshell.ops import creation

torch = pytest.importorskip("torch")


@pytest.fixture
def on_device():
    """Install the CuPy double and make creation functions default to cuda:0."""
    backends.use_cuda_backend(fake_cupy, DeviceArray, lambda a: Device("cuda", 0))
    creation.defaults.device = Device("cuda", 0)
    yield
    creation.defaults.device = Device("cpu")
    backends.reset_cuda_backend()


rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4)).astype(np.float32)
Y = rng.standard_normal((3, 4)).astype(np.float32)
V = rng.standard_normal(4).astype(np.float32)
IDX = Arg(np.array([[0], [1], [2]]), False)

CASES = {
    "erf": (lambda t, x: x.erf(), X),
    "sinh_asin_atan": (lambda t, x: (x / 4).asin() + x.sinh() + x.atan(), X),
    "softplus": (lambda t, x: t.nn.functional.softplus(x), X),
    "atan2": (lambda t, x, y: t.atan2(x, y), X, Y),
    "lerp": (lambda t, x, y: t.lerp(x, y, 0.3) + t.lerp(x, y, y.sigmoid()), X, Y),
    "addcmul_addcdiv": (lambda t, x, y, v: t.addcmul(x, y, v) + t.addcdiv(x, y, v.exp()), X, Y, V),
    "maximum_clamp": (
        lambda t, x, y: t.maximum(x, y) + x.clamp(-0.5, 0.5) + x.clamp(y, y + 1),
        X,
        Y,
    ),
    "prod_max": (lambda t, x: x.prod(1) + x.max(1)[0] + x.amax(1) + x.max(), X),
    "var_std_lse": (lambda t, x: x.var(1) + x.std() + x.logsumexp(1), X),
    "cumsum_cumprod": (lambda t, x: x.cumsum(1) * x.cumprod(1), X),
    "all_argmax": (lambda t, x: (x.all(1), x.argmax(1), x.any()), X),
    "dist": (lambda t, x, y: t.dist(x, y, 3), X, Y),
    "cat_stack": (lambda t, x, y: t.cat([x, y], 1).sum(1) + t.stack([x, y]).sum((0, 2)), X, Y),
    "split_chunk_unbind": (
        lambda t, x: x.split(2)[1].sum(0) + x.chunk(2, 1)[0].sum() + x.unbind()[0],
        X,
    ),
    "flip_roll_repeat": (lambda t, x: x.flip(0) + x.roll(1, 1) + x.roll(2) + x.repeat(2, 1)[3:], X),
    "tril_diagonal": (lambda t, x: x.tril(1).sum(0) + x.diagonal().sum(), X),
    "masked_fill_gather": (lambda t, x, i: x.masked_fill(x > 0, 0.0).gather(1, i), X, IDX),
    "scatter": (
        lambda t, x, y, i: x.scatter(1, i, y[:, :1]) + x.scatter_add(1, i, y[:, :1]),
        X,
        Y,
        IDX,
    ),
    "index_select_add": (
        lambda t, x, y: (
            x.index_select(1, t.tensor([0, 2, 2])).sum(1)
            + x.index_add(1, t.tensor([0, 0]), y[:, :2]).sum(1)
        ),
        X,
        Y,
    ),
    "einsum": (
        lambda t, x, y: t.einsum("ij,kj->ik", x, y).sum() + t.einsum("ii->", x[:, :3]),
        X,
        Y,
    ),
    "addmm_linear": (
        lambda t, x, y, v: t.addmm(v[:3], x, y.t()) + t.nn.functional.linear(x, y, v[:3]),
        X,
        Y,
        V,
    ),
    "activations": (
        lambda t, x: (
            t.nn.functional.leaky_relu(x)
            + t.nn.functional.gelu(x)
            + t.nn.functional.elu(x)
            + t.nn.functional.silu(x)
        ),
        X,
    ),
    "softmax": (lambda t, x: t.nn.functional.softmax(x, 1) * t.nn.functional.log_softmax(x, 0), X),
    "losses": (
        lambda t, x, y: (
            t.nn.functional.mse_loss(x, y)
            + t.nn.functional.l1_loss(x, y)
            + t.nn.functional.smooth_l1_loss(x, y)
            + t.nn.functional.binary_cross_entropy(x.sigmoid(), y.sigmoid())
            + t.nn.functional.binary_cross_entropy_with_logits(x, y.sigmoid())
            + t.nn.functional.cross_entropy(x, y.softmax(1))
        ),
        X,
        Y,
    ),
    "nll_ce": (
        lambda t, x: (
            t.nn.functional.cross_entropy(x, t.tensor([0, 1, 3]))
            + t.nn.functional.nll_loss(x, t.tensor([0, 1, 3]))
        ),
        X,
    ),
    "indexing": (lambda t, x: x[[0, 0, 1]].sum(0) + x[x > 0].sum(), X),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_on_device_matches_pytorch(on_device, name):
    fn, *args = CASES[name]
    ours, _ = check(fn, *args)
    for o in ours if isinstance(ours, tuple) else (ours,):
        assert isinstance(o._data, DeviceArray)


def test_dropout_and_init_on_device(on_device):
    gtorch.manual_seed(1)
    torch.manual_seed(1)
    a = gtorch.nn.functional.dropout(gtorch.ones(5, 5), 0.4)
    b = torch.nn.functional.dropout(torch.ones(5, 5), 0.4)
    assert isinstance(a._data, DeviceArray)
    np.testing.assert_array_equal(a.cpu().numpy(), b.numpy())
    lin = gtorch.nn.Linear(3, 2)
    assert isinstance(lin.weight._data, DeviceArray) and str(lin.weight.device) == "cuda:0"


@pytest.mark.parametrize("opt", ["SGD", "Adam", "AdamW"])
def test_training_on_device(on_device, opt):
    nn = gtorch.nn
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    kwargs = {"lr": 0.1, "momentum": 0.9} if opt == "SGD" else {"lr": 0.01, "amsgrad": True}
    optimiser = getattr(gtorch.optim, opt)(model.parameters(), **kwargs)
    x, y = gtorch.tensor(X), gtorch.tensor([0, 1, 1])
    losses = []
    for _ in range(10):
        optimiser.zero_grad()
        loss = nn.CrossEntropyLoss()(model(x), y)
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert all(isinstance(p._data, DeviceArray) for p in model.parameters())
    state = optimiser.state[model[0].weight]
    assert all(isinstance(v._data, DeviceArray) for k, v in state.items() if k != "step")
