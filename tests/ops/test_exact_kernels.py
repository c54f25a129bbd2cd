"""Differential tests of the exact float kernels against real PyTorch, bit for bit.

Hypothesis draws float32 arrays with subnormals, ±inf, nan, huge and tiny magnitudes, at
the sizes around PyTorch's vector-block boundary (a block is 32 float32 on AVX-512, the
rest of a thread's range runs through the scalar C library).  The MKL-backed ops (exp,
log, tanh, sin, cos) are not reproducible bit for bit; their tests pin the special values
and a floor on the share of identical results.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradshell.core import kernels
from gradshell.core.kernels import elementwise as E
from gradshell.core.kernels import loops
from gradshell.ops import summation

torch = pytest.importorskip("torch")
F = torch.nn.functional

BOUNDARY_SIZES = [1, 2, 7, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 95, 96, 97, 130]
SPECIAL = np.array(
    [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, 1.17549435e-38, 3.4e38, -3.4e38,
     88.72, 88.73, -87.3, -103.9, -104.1, 100.1, 1.0, -1.0, 0.5, 1e-7, -1e-7, 20.0, 20.5],
    dtype=np.float32,
)  # fmt: skip


def _floats32():
    return st.floats(width=32, allow_nan=True, allow_infinity=True, allow_subnormal=True)


def _arrays(elements=None):
    return st.sampled_from(BOUNDARY_SIZES).flatmap(
        lambda n: hnp.arrays(np.float32, n, elements=elements or _floats32())
    )


def _assert_bitwise(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    both_nan = np.isnan(got) & np.isnan(want)
    itype = np.uint32 if got.dtype == np.float32 else np.uint64
    same = (got.view(itype) == want.view(itype)) | both_nan
    bad = np.flatnonzero(~same)
    assert bad.size == 0, (
        f"{bad.size} differ, first at {bad[0]}: got {got[bad[0]]!r}, want {want[bad[0]]!r}"
    )


@pytest.fixture(autouse=True)
def _torch_threads():
    # The vector/scalar split follows the thread count: use the one real torch runs with.
    before = summation.get_num_threads()
    summation.set_num_threads(torch.get_num_threads())
    yield
    summation.set_num_threads(before)


# -- bit for bit -------------------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(_arrays())
def test_sigmoid_bitwise(x):
    _assert_bitwise(E.sigmoid(x), torch.sigmoid(torch.from_numpy(x)).numpy())


@settings(max_examples=150, deadline=None)
@given(_arrays(), st.sampled_from([(1.0, 20.0), (2.0, 5.0), (0.5, 1.0)]))
def test_softplus_bitwise(x, bt):
    beta, threshold = bt
    want = F.softplus(torch.from_numpy(x), beta=beta, threshold=threshold).numpy()
    _assert_bitwise(E.softplus(x, beta, threshold), want)


@settings(max_examples=150, deadline=None)
@given(_arrays())
def test_expm1_bitwise(x):
    _assert_bitwise(E.expm1(x), torch.expm1(torch.from_numpy(x)).numpy())


@settings(max_examples=150, deadline=None)
@given(_arrays())
def test_log1p_bitwise(x):
    _assert_bitwise(E.log1p(x), torch.log1p(torch.from_numpy(x)).numpy())


@pytest.mark.parametrize("op", ["sigmoid", "expm1", "log1p", "softplus"])
def test_special_values_and_boundaries(op):
    ref = {"sigmoid": torch.sigmoid, "expm1": torch.expm1, "log1p": torch.log1p,
           "softplus": F.softplus}[op]  # fmt: skip
    for n in BOUNDARY_SIZES:
        x = np.resize(SPECIAL, n)
        _assert_bitwise(getattr(E, op)(x), ref(torch.from_numpy(x)).numpy())


@pytest.mark.parametrize("n", [40000, 70001])
def test_thread_split_tails(n):
    # Above 32768 elements each OpenMP thread has its own scalar tail.
    x = (np.random.default_rng(n).standard_normal(n) * 6).astype(np.float32)
    _assert_bitwise(E.sigmoid(x), torch.sigmoid(torch.from_numpy(x)).numpy())
    _assert_bitwise(E.softplus(x), F.softplus(torch.from_numpy(x)).numpy())


def test_scalar_mask_block_boundary():
    m = loops.scalar_mask(33, np.float32, threads=1)
    assert not m[:32].any() and m[32]
    assert loops.scalar_mask(31, np.float32, threads=1).all()
    assert loops.scalar_mask(17, np.float64, threads=1).tolist() == [False] * 16 + [True]


def test_multidimensional_and_zero_d():
    x = (np.random.default_rng(1).standard_normal((5, 13)) * 4).astype(np.float32)
    _assert_bitwise(E.sigmoid(x), torch.sigmoid(torch.from_numpy(x)).numpy())
    _assert_bitwise(E.sigmoid(x.T), torch.sigmoid(torch.from_numpy(x).T).numpy())
    z = np.array(0.7, dtype=np.float32)
    _assert_bitwise(E.log1p(z), torch.log1p(torch.from_numpy(z)).numpy())


# -- MKL-backed ops: special values exact, most values identical ---------------------------
MKL_OPS = {"exp": 0.985, "log": 0.97, "tanh": 0.995, "sin": 0.93, "cos": 0.93}


MKL_SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 1e-45, -1e-45, 1e-40, -200.0],
                       dtype=np.float32)  # fmt: skip


@pytest.mark.parametrize("op", sorted(MKL_OPS))
def test_mkl_ops_special_values(op):
    x = MKL_SPECIAL
    if op in ("sin", "cos"):
        x = x[~np.isfinite(x) | (np.abs(x) < 1e-30)]
    _assert_bitwise(getattr(E, op)(x), getattr(torch, op)(torch.from_numpy(x)).numpy())


@pytest.mark.parametrize("op", sorted(MKL_OPS))
def test_mkl_ops_agreement_floor(op):
    x = (np.random.default_rng(3).standard_normal(20000) * 5).astype(np.float32)
    if op == "log":
        x = np.abs(x)
    got = getattr(E, op)(x)
    want = getattr(torch, op)(torch.from_numpy(x)).numpy()
    assert (got == want).mean() >= MKL_OPS[op]
    # and never further than one ulp
    assert (np.abs(got.view(np.int32).astype(np.int64) - want.view(np.int32)) <= 1).all()


# -- wiring: the tensor ops use the kernels, and the switch turns them off -----------------
def test_ops_use_exact_kernels_and_switch():
    from gradshell import torch as gt

    x = (np.random.default_rng(2).standard_normal(45) * 3).astype(np.float32)
    want = torch.sigmoid(torch.from_numpy(x)).numpy()
    _assert_bitwise(gt.tensor(x).sigmoid().numpy(), want)
    _assert_bitwise(gt.nn.functional.softplus(gt.tensor(x)).numpy(),
                    F.softplus(torch.from_numpy(x)).numpy())  # fmt: skip
    _assert_bitwise(gt.tensor(x).expm1().numpy(), torch.from_numpy(x).expm1().numpy())
    assert str(gt.exp(gt.tensor([12.0]))) == str(torch.exp(torch.tensor([12.0])))
    try:
        kernels.set_exact(False)
        assert not kernels.is_exact()
        assert kernels.lookup("sigmoid", x) is None
        fast = gt.tensor(x).sigmoid().numpy()
        assert np.allclose(fast, want, rtol=1e-6)
    finally:
        kernels.set_exact(True)
    assert kernels.lookup("sigmoid", x) is E.sigmoid
    assert kernels.lookup("sigmoid", x.astype(np.float16)) is None


# -- float64 -------------------------------------------------------------------------------
def _floats64():
    return st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([1, 15, 16, 17, 31, 33, 64, 65]).flatmap(
    lambda n: hnp.arrays(np.float64, n, elements=_floats64())))  # fmt: skip
def test_sigmoid_float64_bitwise(x):
    _assert_bitwise(E.sigmoid(x), torch.sigmoid(torch.from_numpy(x)).numpy())


def test_sigmoid_float64_random_and_special():
    x = np.random.default_rng(4).standard_normal(3000) * 12
    x[:24] = SPECIAL.astype(np.float64)
    x[24:30] = [708.0, 709.9, -745.2, -1000.5, 5e-324, -5e-324]
    _assert_bitwise(E.sigmoid(x), torch.sigmoid(torch.from_numpy(x)).numpy())


@pytest.mark.parametrize("op", ["expm1", "log1p", "softplus", "log_sigmoid"])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_sleef_float64_bitwise(op, data):
    # Sleef's double expm1 and log1p (and softplus, log_sigmoid built on them)
    x = data.draw(st.sampled_from([1, 7, 8, 9, 16, 17, 33]).flatmap(
        lambda n: hnp.arrays(np.float64, n, elements=st.one_of(
            _floats64(), st.floats(-40, 40), st.sampled_from([-1.0, 709.9, -745.2, 1e307])))))  # fmt: skip
    ref = {"expm1": torch.expm1, "log1p": torch.log1p, "softplus": F.softplus,
           "log_sigmoid": F.logsigmoid}[op]  # fmt: skip
    _assert_bitwise(getattr(E, op)(x), ref(torch.from_numpy(x)).numpy())


def test_sleef_float64_random():
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.standard_normal(3000) * 8, rng.uniform(-1, 1, 1000) * 1e-4,
                        np.exp(rng.uniform(-700, 700, 1000))])  # fmt: skip
    for op, ref in [("expm1", torch.expm1), ("log1p", torch.log1p), ("softplus", F.softplus)]:
        v = np.abs(x) if op == "log1p" else x
        _assert_bitwise(getattr(E, op)(v), ref(torch.from_numpy(v)).numpy())


# -- backward kernels ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [5, 33, 45, 1000, 40000])
def test_backward_kernels_bitwise(dtype, n):
    # PyTorch's backward kernels reached through autograd (its output y, then x.grad)
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 4).astype(dtype)
    g = rng.standard_normal(n).astype(dtype)

    def forward_and_grad(fn):
        tx = torch.from_numpy(x).requires_grad_()
        y = fn(tx)
        y.backward(torch.from_numpy(g))
        return y.detach().numpy(), tx.grad.numpy()

    y, want = forward_and_grad(torch.tanh)
    _assert_bitwise(E.tanh_backward(g, y), want)
    y, want = forward_and_grad(torch.sigmoid)
    _assert_bitwise(E.sigmoid_backward(g, y), want)
    for beta, threshold in [(1.0, 20.0), (2.0, 3.0)]:
        _, want = forward_and_grad(lambda t: F.softplus(t, beta=beta, threshold=threshold))  # noqa: B023
        _assert_bitwise(E.softplus_backward(g, x, beta, threshold), want)


def test_lookup_pair_guards():
    a = np.ones(3, np.float32)
    assert kernels.lookup_pair("tanh_backward", a, a) is E.tanh_backward
    assert kernels.lookup_pair("tanh_backward", a, a.astype(np.float64)) is None
    assert kernels.lookup_pair("tanh_backward", a, np.ones(4, np.float32)) is None


@settings(max_examples=100, deadline=None)
@given(_arrays())
def test_log_sigmoid_bitwise(x):
    _assert_bitwise(E.log_sigmoid(x), F.logsigmoid(torch.from_numpy(x)).numpy())


@pytest.mark.parametrize("pos_weight", [None, 3.0])
def test_bce_with_logits_elementwise(pos_weight):
    rng = np.random.default_rng(6)
    x = (rng.standard_normal(77) * 5).astype(np.float32)
    t = rng.uniform(0, 1, 77).astype(np.float32)
    pw = None if pos_weight is None else np.full(77, pos_weight, np.float32)
    want = F.binary_cross_entropy_with_logits(
        torch.from_numpy(x),
        torch.from_numpy(t),
        reduction="none",
        pos_weight=None if pw is None else torch.from_numpy(pw),
    ).numpy()
    _assert_bitwise(E.bce_with_logits(x, t, pw), want)


# -- matrix products (MKL's sgemm order, where measured) ----------------------------------
from gradshell.core.kernels import gemm  # noqa: E402

GEMM_SHAPES = [
    (1, 5, 3), (1, 300, 64), (2, 64, 16), (3, 10, 100), (4, 64, 2), (64, 3, 8), (64, 200, 4),
    (8, 5, 12), (64, 10, 32), (64, 100, 32), (12, 193, 16), (64, 200, 32), (16, 383, 16),
    (64, 784, 128), (100, 1000, 20), (13, 64, 64), (64, 8, 1), (1000, 784, 1), (8, 3, 1),
]  # fmt: skip


@pytest.mark.parametrize("m,k,n", GEMM_SHAPES)
def test_gemm_order_bitwise(m, k, n):
    rng = np.random.default_rng(m * 1000 + k + n)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    got = gemm.mm(a, b)
    assert got is not None
    _assert_bitwise(got, (torch.from_numpy(a) @ torch.from_numpy(b)).numpy())
    if n >= 12 and (m >= 12 or m % 4 == 0):  # also with a transposed operand
        at = np.ascontiguousarray(a.T).T
        _assert_bitwise(
            gemm.mm(at, b), (torch.from_numpy(a.T.copy()).t() @ torch.from_numpy(b)).numpy()
        )


@pytest.mark.parametrize("m,k,n", [(64, 100, 32), (64, 300, 32), (16, 500, 16), (64, 784, 128)])
def test_linear_bias_order_bitwise(m, k, n):
    rng = np.random.default_rng(k)
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    want = F.linear(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(bias)).numpy()
    _assert_bitwise(gemm.addmm(bias, x, w.T), want)

    from gradshell import torch as gt

    got = gt.nn.functional.linear(gt.tensor(x), gt.tensor(w), gt.tensor(bias)).numpy()
    _assert_bitwise(got, want)


@pytest.mark.parametrize("m,k,n", [(64, 8, 1), (64, 100, 1), (2, 16, 2), (64, 784, 3), (7, 12, 2)])
def test_linear_few_outputs_bitwise(m, k, n):
    rng = np.random.default_rng(m + k + n)
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    want = F.linear(torch.from_numpy(x), torch.from_numpy(w)).numpy()
    got = gemm.mm(x, w.T)
    assert got is not None
    _assert_bitwise(got, want)


def test_gemm_unknown_orders_fall_back():
    a = np.ones((7, 64), np.float32)
    assert gemm.mm(a, np.ones((64, 1), np.float32)) is None  # n = 1, m not a multiple of 4
    assert gemm.mm(a, np.ones((64, 7), np.float32)) is None
    assert gemm.mm(a.astype(np.float64), np.ones((64, 16))) is None
    assert gemm.k_blocks(100) == [(0, 100)]
    assert gemm.k_blocks(200) == [(0, 100), (100, 200)]
    assert gemm.k_blocks(500) == [(0, 192), (192, 384), (384, 500)]


def test_log_follows_mkl_range_reduction():
    # exp(1).log() prints 1. in PyTorch: MKL's log is not the correctly rounded one there
    e1 = torch.exp(torch.tensor([1.0])).numpy()
    _assert_bitwise(E.log(e1), np.array([1.0], np.float32))
    rng = np.random.default_rng(9)
    x = np.exp(rng.uniform(-80, 80, 50000)).astype(np.float32)
    assert (E.log(x) == torch.log(torch.from_numpy(x)).numpy()).mean() >= 0.98


@pytest.mark.parametrize("n", [1, 31, 33, 70, 1000, 40001])
def test_pow_bitwise(n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 3).astype(np.float32)
    x[: min(3, n)] = [0.0, -2.0, np.inf][: min(3, n)]
    for e in [1.5, 2.5, 0.3, 4.0, -1.7, 7.0, -3.0, 0.25]:
        _assert_bitwise(E.pow_scalar(x, e), torch.from_numpy(x).pow(e).numpy())
    y = (rng.standard_normal(n) * 2).astype(np.float32)
    want = torch.from_numpy(np.abs(x)).pow(torch.from_numpy(y)).numpy()
    _assert_bitwise(E.pow_tensor(np.abs(x), y), want)


# -- end to end: tutorial programs print PyTorch's numbers ---------------------------------
def _train(torch_mod, act: str, hidden: int, batch: int, momentum: float, steps: int, bce: bool):
    torch_mod.manual_seed(0)
    x = torch_mod.randn(batch, 3)
    y = x[:, :1] * 2 - x[:, 1:2] + 0.5 * x[:, 2:3]
    if bce:
        y = (y > 0).float()
    layer = {"sigmoid": torch_mod.nn.Sigmoid, "relu": torch_mod.nn.ReLU}[act]()
    model = torch_mod.nn.Sequential(
        torch_mod.nn.Linear(3, hidden), layer, torch_mod.nn.Linear(hidden, 1)
    )
    opt = torch_mod.optim.SGD(model.parameters(), lr=0.1, momentum=momentum)
    loss_fn = torch_mod.nn.BCEWithLogitsLoss() if bce else torch_mod.nn.MSELoss()
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize(
    "act,hidden,batch,momentum,steps,bce",
    [("sigmoid", 8, 64, 0.9, 200, False), ("relu", 32, 64, 0.9, 60, True)],
)
def test_tutorial_mlp_losses_identical(act, hidden, batch, momentum, steps, bce):
    from gradshell import torch as gt

    want = _train(torch, act, hidden, batch, momentum, steps, bce)
    got = _train(gt, act, hidden, batch, momentum, steps, bce)
    assert got == want


def test_autograd_tutorial_loss_identical():
    # the official "Automatic Differentiation with torch.autograd" tutorial
    from gradshell import torch as gt

    def loss_of(t):
        t.manual_seed(0)
        x, y = t.ones(5), t.zeros(3)
        w = t.randn(5, 3, requires_grad=True)
        b = t.randn(3, requires_grad=True)
        z = t.matmul(x, w) + b
        loss = t.nn.functional.binary_cross_entropy_with_logits(z, y)
        loss.backward()
        return loss.item(), w.grad.numpy().tolist(), b.grad.numpy().tolist()

    assert loss_of(gt) == loss_of(torch)
    e = gt.tensor([1.0], requires_grad=True).exp().log()
    assert str(e) == str(torch.tensor([1.0], requires_grad=True).exp().log())


def test_package_level_switch():
    import gradshell

    try:
        gradshell.set_exact(False)
        assert not gradshell.is_exact() and not kernels.is_exact()
    finally:
        gradshell.set_exact(True)
    assert gradshell.is_exact()
