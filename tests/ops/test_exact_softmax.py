"""Differential tests of the exact softmax kernels against real PyTorch, bit for bit.

softmax, log_softmax and their backward kernels along the last dimension, float32 and
float64, over Hypothesis-drawn rows: subnormals, ±inf, nan, huge and tiny magnitudes,
and row lengths around the vector size (16 float32 or 8 float64 lanes), where ATen's
fold order changes.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradshell import torch as gtorch
from gradshell.core import kernels, threads
from gradshell.core.kernels import softmax as S

torch = pytest.importorskip("torch")

ROW_SIZES = [1, 2, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 47, 48, 63, 64, 65, 100]
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, 3.4e38, -3.4e38, 88.7,
           -87.3, -104.0, 1.0, -1.0, 30.0]  # fmt: skip


def _elements(dtype):
    width = 32 if dtype == np.float32 else 64
    wide = st.floats(width=width, allow_nan=True, allow_infinity=True, allow_subnormal=True)
    moderate = st.floats(-60, 60, width=width, allow_subnormal=True)
    return st.one_of(moderate, moderate, wide, st.sampled_from(SPECIAL))


def _matrices(dtype):
    return st.tuples(st.integers(1, 4), st.sampled_from(ROW_SIZES)).flatmap(
        lambda shape: hnp.arrays(dtype, shape, elements=_elements(dtype))
    )


def _backward(fn, x: np.ndarray, g: np.ndarray):
    """PyTorch's output of `fn` along the last dim and the gradient for upstream `g`."""
    tx = torch.from_numpy(x).requires_grad_()
    y = fn(tx, -1)
    y.backward(torch.from_numpy(g))
    return y.detach().numpy(), tx.grad.numpy()


def _our_logsumexp(x: np.ndarray) -> np.ndarray:
    """gradshell's torch.logsumexp over the last dim."""
    return gtorch.logsumexp(gtorch.from_numpy(x), -1).numpy()


def _assert_bitwise(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    itype = np.uint32 if got.dtype == np.float32 else np.uint64
    same = (got.view(itype) == want.view(itype)) | (np.isnan(got) & np.isnan(want))
    bad = np.flatnonzero(~same.reshape(-1))
    assert bad.size == 0, (
        f"{bad.size} differ, first at {bad[0]}: got {got.reshape(-1)[bad[0]]!r}, "
        f"want {want.reshape(-1)[bad[0]]!r}"
    )


DTYPES = [np.float32, np.float64]


@pytest.fixture(autouse=True)
def _torch_threads():
    # softmax along other dims splits its columns by thread: use real torch's count
    before = threads.get_num_threads()
    threads.set_num_threads(torch.get_num_threads())
    yield
    threads.set_num_threads(before)


@pytest.mark.parametrize("dtype", DTYPES)
@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_softmax_lastdim_bitwise(dtype, data):
    x = data.draw(_matrices(dtype))
    _assert_bitwise(S.softmax(x), torch.softmax(torch.from_numpy(x), -1).numpy())


@pytest.mark.parametrize("dtype", DTYPES)
@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_log_softmax_lastdim_bitwise(dtype, data):
    x = data.draw(_matrices(dtype))
    _assert_bitwise(S.log_softmax(x), torch.log_softmax(torch.from_numpy(x), -1).numpy())


def _cubes(dtype):
    dims = st.tuples(st.integers(1, 3), st.integers(1, 9), st.sampled_from([1, 5, 8, 16, 17, 33]))
    return dims.flatmap(lambda shape: hnp.arrays(dtype, shape, elements=_elements(dtype)))


@pytest.mark.parametrize("dtype", DTYPES)
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_softmax_other_dims_bitwise(dtype, data):
    # vectors along the inner columns, the leftover columns through the scalar code
    x = data.draw(_cubes(dtype))
    dim = data.draw(st.sampled_from([0, 1]))
    tx = torch.from_numpy(x)
    _assert_bitwise(S.softmax(x, dim), torch.softmax(tx, dim).numpy())
    _assert_bitwise(S.log_softmax(x, dim), torch.log_softmax(tx, dim).numpy())
    g = data.draw(hnp.arrays(dtype, x.shape, elements=st.floats(-10, 10, width=8 * x.itemsize)))
    for fn, backward in ((torch.softmax, S.softmax_backward),
                         (torch.log_softmax, S.log_softmax_backward)):  # fmt: skip
        tx = torch.from_numpy(x).requires_grad_()
        y = fn(tx, dim)
        y.backward(torch.from_numpy(g))
        _assert_bitwise(backward(g, y.detach().numpy(), dim), tx.grad.numpy())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", [((7, 100), 0), ((3, 17, 40), 1), ((64, 10, 8, 8), 1),
                                       ((2, 5, 3000), 1), ((1, 7, 5000), 1)])  # fmt: skip
def test_softmax_other_dims_thread_split(dtype, shape, dim):
    # which columns take the scalar code follows the even split of the columns by thread
    x = (np.random.default_rng(sum(shape)).standard_normal(shape) * 5).astype(dtype)
    tx = torch.from_numpy(x)
    _assert_bitwise(S.softmax(x, dim), torch.softmax(tx, dim).numpy())
    _assert_bitwise(S.log_softmax(x, dim), torch.log_softmax(tx, dim).numpy())


@pytest.mark.parametrize("dtype", DTYPES)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_softmax_backward_lastdim_bitwise(dtype, data):
    x = data.draw(_matrices(dtype))
    g = data.draw(hnp.arrays(dtype, x.shape, elements=st.floats(-10, 10, width=8 * x.itemsize)))
    y, want = _backward(torch.softmax, x, g)
    _assert_bitwise(S.softmax_backward(g, y), want)
    y, want = _backward(torch.log_softmax, x, g)
    _assert_bitwise(S.log_softmax_backward(g, y), want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(64, 10), (3, 1000), (2, 3, 33), (200, 7), (5,)])
def test_softmax_family_random_rows(dtype, shape):
    rng = np.random.default_rng(sum(shape))
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    y, want = _backward(torch.softmax, x, g)
    _assert_bitwise(S.softmax(x), y)
    _assert_bitwise(S.softmax_backward(g, y), want)
    y, want = _backward(torch.log_softmax, x, g)
    _assert_bitwise(S.log_softmax(x), y)
    _assert_bitwise(S.log_softmax_backward(g, y), want)


def test_signed_zero_maximum_follows_the_fold_order():
    # -0 against +0: the later operand of each fold wins, which decides the sign of a
    # log_softmax output when the row's sum of exps is exactly 1
    for row in ([-0.0, -200.0], [0.0, -0.0, -300.0], [-0.0] + [-500.0] * 16 + [0.0]):
        x = np.array([row], np.float32)
        _assert_bitwise(S.log_softmax(x), torch.log_softmax(torch.from_numpy(x), -1).numpy())


@pytest.mark.parametrize("dtype", DTYPES)
def test_logsumexp_special_values(dtype):
    x = np.array([[0.0, 1.0, 2.0], [-np.inf, -np.inf, -np.inf], [np.inf, 1.0, 0.0],
                  [np.nan, 1.0, 2.0], [1e-40, -1e-40, 0.0]], dtype)  # fmt: skip
    _assert_bitwise(_our_logsumexp(x), torch.logsumexp(torch.from_numpy(x), -1).numpy())


@pytest.mark.parametrize("dtype", DTYPES)
def test_logsumexp_mostly_identical(dtype):
    # built from the unary exp and log, whose PyTorch results come from MKL here
    x = (np.random.default_rng(5).standard_normal((500, 37)) * 4).astype(dtype)
    got, want = _our_logsumexp(x), torch.logsumexp(torch.from_numpy(x), -1).numpy()
    assert (got == want).mean() >= 0.95
    assert np.allclose(got, want, rtol=4 * np.finfo(dtype).eps, atol=0)


def test_cross_entropy_from_log_softmax_rows():
    # cross_entropy is nll_loss(log_softmax(x, 1)): with rows exact, the picked entries are
    x = (np.random.default_rng(8).standard_normal((64, 10)) * 3).astype(np.float32)
    t = np.random.default_rng(9).integers(0, 10, 64)
    want = torch.nn.functional.cross_entropy(torch.from_numpy(x), torch.from_numpy(t),
                                             reduction="none").numpy()  # fmt: skip
    _assert_bitwise(-S.log_softmax(x)[np.arange(64), t], want)


def test_lookup_names():
    x = np.ones((2, 3), np.float32)
    assert kernels.lookup("softmax", x) is S.softmax
    assert kernels.lookup("log_softmax", x) is S.log_softmax
    assert kernels.lookup_pair("softmax_backward", x, x) is S.softmax_backward
    assert kernels.lookup_pair("log_softmax_backward", x, x) is S.log_softmax_backward
    assert kernels.lookup("softmax", x.astype(np.float16)) is None
