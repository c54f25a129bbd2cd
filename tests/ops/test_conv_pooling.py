"""F.conv2d, F.conv1d, F.max_pool2d, F.avg_pool2d and F.adaptive_avg_pool2d (gradshell/ops/conv.py, pooling.py): values,
gradients, node names and errors against PyTorch; first and second derivatives against
finite differences in float64."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.op_checks import Arg, check, check_error, gradcheck, gradgradcheck

from gradshell import torch as gtorch
from gradshell.ops.conv import conv1d, conv2d
from gradshell.ops.pooling import avg_pool2d, max_pool2d

RNG = np.random.default_rng(0)


def _arr(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


# stride, padding, dilation, groups, bias, input shape, weight shape
CONV_CASES = [
    (1, 0, 1, 1, True, (2, 3, 7, 6), (4, 3, 3, 3)),
    (2, 1, 1, 1, True, (1, 2, 8, 8), (3, 2, 3, 2)),
    ((2, 1), (1, 0), (1, 2), 2, True, (2, 4, 9, 8), (6, 2, 3, 2)),
    (1, "same", 2, 1, False, (1, 2, 6, 6), (3, 2, 3, 3)),
    (1, "valid", 1, 1, True, (2, 1, 5, 5), (2, 1, 5, 5)),
    (1, "same", 1, 1, True, (2, 2, 6, 5), (3, 2, 2, 3)),  # an odd total: padded at the end
    (1, 1, 1, 3, False, (6, 5, 5), (3, 2, 2, 2)),  # unbatched (C, H, W)
]


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_matches_pytorch(real_torch, case):
    stride, padding, dilation, groups, bias, xs, ws = case
    args = [_arr(*xs), _arr(*ws)] + ([_arr(ws[0])] if bias else [])

    def fn(t, x, w, b=None):
        return t.nn.functional.conv2d(x, w, b, stride, padding, dilation, groups)

    check(fn, *args, rtol=1e-5, atol=1e-5, grad_rtol=1e-4, grad_atol=1e-4)


def test_conv2d_without_grad_for_weight(real_torch):
    check(
        lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, padding=1),
        _arr(1, 2, 5, 5),
        Arg(_arr(3, 2, 3, 3), requires_grad=False),
        _arr(3),
        rtol=1e-5,
        atol=1e-5,
    )


def test_conv2d_double_backward_node_and_values(real_torch):
    torch = real_torch
    x, w = _arr(2, 2, 6, 5).astype(np.float64), _arr(4, 2, 3, 3).astype(np.float64)
    results = []
    for lib in (gtorch, torch):
        tx = lib.tensor(x.copy(), requires_grad=True)
        tw = lib.tensor(w.copy(), requires_grad=True)
        y = lib.nn.functional.conv2d(tx, tw, stride=2, padding=1)
        gx, gw = lib.autograd.grad((y * y).sum(), (tx, tw), create_graph=True)
        assert type(gx.grad_fn).__name__ == "ConvolutionBackwardBackward0"
        assert gw.grad_fn is gx.grad_fn and gw.output_nr == 1
        ((gx**2).sum() + (gw**3).sum()).backward()
        results.append((tx.grad.numpy(), tw.grad.numpy()))
    for ours, theirs in zip(results[0], results[1], strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-10)


@settings(max_examples=8, deadline=None)
@given(
    stride=st.integers(1, 2),
    padding=st.integers(0, 1),
    dilation=st.integers(1, 2),
    groups=st.sampled_from([1, 2]),
)
def test_conv2d_finite_differences(stride, padding, dilation, groups):
    rng = np.random.default_rng(stride * 7 + padding * 3 + dilation + groups)
    x = gtorch.tensor(rng.standard_normal((1, 2, 5, 5)), requires_grad=True)
    w = gtorch.tensor(rng.standard_normal((2, 2 // groups, 2, 2)), requires_grad=True)
    b = gtorch.tensor(rng.standard_normal(2), requires_grad=True)

    def fn(x, w, b):
        return conv2d(x, w, b, stride, padding, dilation, groups)

    gradcheck(fn, x, w, b)
    gradgradcheck(lambda x, w: conv2d(x, w, None, stride, padding, dilation, groups) ** 2, x, w)


CONV_ERRORS = [
    ((1, 3, 8, 8), (6, 1, 5, 5), None, {}),
    ((1, 1, 3, 3), (6, 1, 5, 5), None, {}),
    ((8, 8), (6, 1, 5, 5), None, {}),
    ((1, 1, 8, 8), (6, 1, 5, 5), None, {"stride": 2, "padding": "same"}),
    ((1, 1, 8, 8), (6, 1, 5, 5), None, {"padding": "foo"}),
    ((1, 4, 8, 8), (6, 2, 5, 5), None, {"groups": 3}),
    ((1, 1, 8, 8), (6, 1, 5, 5), None, {"stride": 0}),
    ((1, 1, 8, 8), (6, 1, 5, 5), None, {"padding": -1}),
    ((1, 1, 8, 8), (6, 1, 5, 5), (5,), {}),
    ((3, 6, 5), (3, 2, 2, 2), None, {"groups": 3}),
]


@pytest.mark.parametrize("case", CONV_ERRORS)
def test_conv2d_errors(real_torch, case):
    xs, ws, bs, kw = case
    args = [_arr(*xs), _arr(*ws)] + ([_arr(*bs)] if bs else [])
    check_error(lambda t, x, w, b=None: t.nn.functional.conv2d(x, w, b, **kw), *args)


def test_conv2d_dtype_errors(real_torch):
    x, w, b = _arr(1, 1, 8, 8), _arr(6, 1, 5, 5), _arr(6)
    check_error(lambda t, x, w: t.nn.functional.conv2d(x.double(), w), x, w)
    check_error(lambda t, x, w, b: t.nn.functional.conv2d(x, w, b.double()), x, w, b)
    check_error(lambda t, x, w, b: t.nn.functional.conv2d(x.double(), w, b), x, w, b)
    check_error(lambda t, x, w, b: t.nn.functional.conv2d(x.long(), w, b), x, w, b)


def test_conv2d_on_integers(real_torch):
    x = RNG.integers(-3, 3, (1, 2, 5, 5))
    w = RNG.integers(-3, 3, (2, 2, 3, 3))
    check(lambda t, x, w: t.nn.functional.conv2d(x, w, padding=1), x, w, backward=False)


POOL_CASES = [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
    {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 0)},
    {"kernel_size": 2, "ceil_mode": True},
    {"kernel_size": 3, "stride": 1, "padding": 1},
]


@pytest.mark.parametrize("kw", POOL_CASES)
@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (3, 5, 5)])
def test_max_pool2d_matches_pytorch(real_torch, kw, shape):
    x = RNG.integers(-4, 4, shape).astype(np.float32)  # many ties: PyTorch takes the first
    x.flat[::7] = np.nan  # and the last NaN of a window
    check(lambda t, a: t.nn.functional.max_pool2d(a, **kw), x)
    check(lambda t, a: t.nn.functional.max_pool2d(a, **kw, return_indices=True), x)
    check(lambda t, a: t.nn.functional.max_pool2d(a, **kw, dilation=2), _arr(*shape[:-2], 9, 9))


@pytest.mark.parametrize(
    "kw",
    POOL_CASES
    + [
        {
            "kernel_size": 3,
            "stride": 2,
            "padding": 1,
            "ceil_mode": True,
            "count_include_pad": False,
        },
        {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 0), "divisor_override": 3},
    ],
)
@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (3, 5, 5)])
def test_avg_pool2d_matches_pytorch(real_torch, kw, shape):
    check(lambda t, a: t.nn.functional.avg_pool2d(a, **kw), _arr(*shape))


@pytest.mark.parametrize("op", ["max", "avg"])
def test_pooling_double_backward_nodes(real_torch, op):
    torch = real_torch
    x = _arr(1, 2, 4, 4).astype(np.float64)
    names = []
    for lib in (gtorch, torch):
        t = lib.tensor(x.copy(), requires_grad=True)
        pool = lib.nn.functional.max_pool2d if op == "max" else lib.nn.functional.avg_pool2d
        (g,) = lib.autograd.grad((pool(t, 2) ** 2).sum(), t, create_graph=True)
        names.append(type(g.grad_fn).__name__)
        (g**2).sum().backward()
        names.append(t.grad.numpy().round(10).tolist())
    assert names[0] == names[2]
    assert names[1] == names[3]


def test_pooling_finite_differences():
    rng = np.random.default_rng(3)
    x = gtorch.tensor(rng.standard_normal((1, 2, 5, 5)), requires_grad=True)
    gradcheck(lambda a: max_pool2d(a, 2, 1, ceil_mode=True), x)
    gradcheck(lambda a: avg_pool2d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False), x)
    gradgradcheck(lambda a: avg_pool2d(a, 2) ** 2, x)
    gradgradcheck(lambda a: max_pool2d(a, 2) ** 2, x)


POOL_ERRORS = [
    ("max_pool2d", (1, 1, 8, 8), {"kernel_size": 2, "padding": 2}),
    ("max_pool2d", (1, 1, 1, 1), {"kernel_size": 2}),
    ("max_pool2d", (8,), {"kernel_size": 2}),
    ("avg_pool2d", (1, 1, 8, 8), {"kernel_size": 2, "padding": 2}),
    ("avg_pool2d", (1, 1, 1, 1), {"kernel_size": 2}),
]


@pytest.mark.parametrize("case", POOL_ERRORS)
def test_pooling_errors(real_torch, case):
    name, shape, kw = case
    check_error(lambda t, a: getattr(t.nn.functional, name)(a, **kw), _arr(*shape))


def test_pooling_integers(real_torch):
    x = RNG.integers(-9, 9, (1, 2, 6, 6))
    check(lambda t, a: t.nn.functional.max_pool2d(a, 2), x, backward=False)
    check(lambda t, a: t.nn.functional.avg_pool2d(a, 3, 1, 1), x, backward=False)


@pytest.mark.parametrize("size", [1, (1, 1), (2, 3), (5, 7), (4, None), (10, 10), 3])
def test_adaptive_avg_pool2d_matches_pytorch(real_torch, size):
    check(lambda t, a: t.nn.functional.adaptive_avg_pool2d(a, size), _arr(2, 3, 5, 7))
    check(lambda t, a: t.nn.functional.adaptive_avg_pool2d(a, size), _arr(3, 6, 4))


def test_adaptive_avg_pool2d_double_backward_and_errors(real_torch):
    torch = real_torch
    x = _arr(1, 2, 5, 5).astype(np.float64)
    names = []
    for lib in (gtorch, torch):
        t = lib.tensor(x.copy(), requires_grad=True)
        y = lib.nn.functional.adaptive_avg_pool2d(t, (2, 3))
        (g,) = lib.autograd.grad((y**2).sum(), t, create_graph=True)
        names.append(type(g.grad_fn).__name__)
    assert names[0] == names[1] == "AdaptiveAvgPool2DBackwardBackward0"
    check_error(lambda t, a: t.nn.functional.adaptive_avg_pool2d(a, 2), _arr(4, 4))
    rng = np.random.default_rng(4)
    a = gtorch.tensor(rng.standard_normal((1, 2, 5, 4)), requires_grad=True)
    from gradshell.ops.pooling import adaptive_avg_pool2d

    gradcheck(lambda v: adaptive_avg_pool2d(v, (3, 3)), a)
    gradgradcheck(lambda v: adaptive_avg_pool2d(v, (2, 3)) ** 2, a)


# stride, padding, dilation, groups, bias, input shape, weight shape
CONV1D_CASES = [
    (1, 0, 1, 1, True, (2, 3, 9), (4, 3, 3)),
    (2, 1, 2, 2, True, (1, 4, 11), (6, 2, 3)),
    (1, "same", 1, 1, False, (2, 2, 7), (3, 2, 4)),
    (1, 1, 1, 1, True, (3, 8), (2, 3, 2)),  # unbatched (C, L)
]


@pytest.mark.parametrize("case", CONV1D_CASES)
def test_conv1d_matches_pytorch(real_torch, case):
    stride, padding, dilation, groups, bias, xs, ws = case
    args = [_arr(*xs), _arr(*ws)] + ([_arr(ws[0])] if bias else [])

    def fn(t, x, w, b=None):
        return t.nn.functional.conv1d(x, w, b, stride, padding, dilation, groups)

    check(fn, *args, rtol=1e-5, atol=1e-5, grad_rtol=1e-4, grad_atol=1e-4)


@pytest.mark.parametrize(
    "case",
    [
        ((1, 3, 8), (6, 1, 5), None),
        ((8,), (6, 1, 5), None),
        ((1, 1, 3), (6, 1, 5), None),
        ((1, 1, 8), (6, 1, 5), (5,)),
        ((1, 1, 8), (6, 1, 5, 5), None),
    ],
)
def test_conv1d_errors(real_torch, case):
    xs, ws, bs = case
    args = [_arr(*xs), _arr(*ws)] + ([_arr(*bs)] if bs else [])
    check_error(lambda t, x, w, b=None: t.nn.functional.conv1d(x, w, b), *args)


def test_conv1d_finite_differences():
    rng = np.random.default_rng(9)
    x = gtorch.tensor(rng.standard_normal((2, 2, 6)), requires_grad=True)
    w = gtorch.tensor(rng.standard_normal((3, 2, 3)), requires_grad=True)
    b = gtorch.tensor(rng.standard_normal(3), requires_grad=True)
    gradcheck(lambda x, w, b: conv1d(x, w, b, 2, 1), x, w, b)
    gradgradcheck(lambda x, w: conv1d(x, w, None, 1, "same", 2) ** 2, x, w)
