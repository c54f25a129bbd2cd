"""Elementwise arithmetic with PyTorch's operand kinds and broadcasting: sub/div/pow with a
tensor or a number on either side, atan2, lerp, addcmul/addcdiv, maximum/minimum and
clamp/clip (number and tensor bounds) — values, gradients, node names, errors."""

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
    st.sampled_from([0.0, 1.0, -1.0, 2.0, 0.5]),
    st.floats(-3, 3, allow_nan=False, width=32),
)


@st.composite
def broadcast_pair(draw, n=2, dtype=np.float32, elements=VALUES):
    """n arrays whose shapes broadcast together (hypothesis' broadcastable shapes)."""
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=n, max_dims=3, max_side=3))
    return [draw(hnp.arrays(dtype, s, elements=elements)) for s in shapes.input_shapes]


SCALARS = st.sampled_from([2, -1, 0.5, 3.0, True])


@pytest.mark.parametrize(
    "op",
    [
        lambda t, a, b: a - b,
        lambda t, a, b: a / b,
        lambda t, a, b: t.sub(a, b, alpha=2),
        lambda t, a, b: a.abs() ** b,
        lambda t, a, b: t.atan2(a, b),
        lambda t, a, b: t.maximum(a, b),
        lambda t, a, b: t.minimum(a, b),
        lambda t, a, b: t.max(a, b),
        lambda t, a, b: t.min(a, b),
        lambda t, a, b: t.lerp(a, b, 0.3),
        lambda t, a, b: t.lerp(a, b, 0.8),
        lambda t, a, b: a.clamp(min=b),
        lambda t, a, b: a.clamp(max=b),
        lambda t, a, b: t.clip(a, b, b + 1),
    ],
    ids=[
        "sub",
        "div",
        "sub_alpha",
        "pow",
        "atan2",
        "maximum",
        "minimum",
        "max_binary",
        "min_binary",
        "lerp_small",
        "lerp_large",
        "clamp_min_t",
        "clamp_max_t",
        "clip_t",
    ],
)
@settings(max_examples=15, deadline=None)
@given(pair=broadcast_pair())
def test_binary_tensor_ops(op, pair):
    check(op, *pair)


@pytest.mark.parametrize(
    "op",
    [
        lambda t, a, s: a - s,
        lambda t, a, s: s - a,
        lambda t, a, s: a / s,
        lambda t, a, s: s / a,
        lambda t, a, s: a.abs() ** s,
        lambda t, a, s: s ** (a / 4),
        lambda t, a, s: a.clamp(-abs(s), abs(s)),
        lambda t, a, s: a.clamp(min=s),
        lambda t, a, s: a.clip(max=s),
        lambda t, a, s: t.clamp(a, -1, s),
    ],
    ids=["t-s", "s-t", "t/s", "s/t", "t**s", "s**t", "clamp", "clamp_min", "clip_max", "clamp3"],
)
@settings(max_examples=12, deadline=None)
@given(
    a=hnp.arrays(np.float32, hnp.array_shapes(min_dims=0, max_dims=3, max_side=3), elements=VALUES),
    s=SCALARS,
)
def test_tensor_and_number(op, a, s):
    if isinstance(s, bool):
        s = int(s) + 1  # bool ** / clamp by bool are not interesting here
    check(op, a, s)


@pytest.mark.parametrize("value", [1, 0.5, -2.0])
@settings(max_examples=10, deadline=None)
@given(trio=broadcast_pair(n=3))
def test_addcmul_addcdiv(value, trio):
    a, b, c = trio
    check(lambda t, x, y, z: t.addcmul(x, y, z, value=value), a, b, c)
    c = np.where(np.abs(c) < 0.25, 1.0, c).astype(np.float32)
    check(lambda t, x, y, z: t.addcdiv(x, y, z, value=value), a, b, c)


@settings(max_examples=15, deadline=None)
@given(trio=broadcast_pair(n=3))
def test_lerp_tensor_weight_and_clamp_tensor_bounds(trio):
    a, b, w = trio
    if np.broadcast_shapes(a.shape, b.shape) == np.broadcast_shapes(a.shape, b.shape, w.shape):
        # (PyTorch's own lerp backward fails when only the weight widens the result)
        check(lambda t, x, y, z: t.lerp(x, y, z), a, b, w)
    if np.broadcast_shapes(a.shape, b.shape, w.shape) == a.shape:
        # (and clamp's when a bound widens the result)
        check(lambda t, x, lo, hi: x.clamp(lo, hi), a, b, w)


@pytest.mark.parametrize(
    "flags", [(True, False, False), (False, True, False), (False, False, True)]
)
def test_which_inputs_get_edges_and_saved_tensors(flags):
    rng = np.random.default_rng(0)
    arrs = [Arg(rng.standard_normal((2, 3)), f) for f in flags]
    check(lambda t, x, y, z: t.addcmul(x, y, z, value=2), *arrs)
    check(lambda t, x, y, z: t.addcdiv(x, y, z + 5), *arrs)
    check(lambda t, x, y, z: t.lerp(x, y, z), *arrs)
    check(lambda t, x, y, z: x.clamp(y, z), *arrs)
    check(lambda t, x, y, z: x.clamp(min=y), *arrs)


def test_ties_and_edges():
    x = np.array([0.0, 0.0, 5.0, 5.0, 1.0, 3.0])
    lo = np.array([1.0, 1.0, 1.0, 6.0, 1.0, 3.0])
    hi = np.array([1.0, 0.5, 2.0, 5.0, 1.0, 3.0])
    check(lambda t, a, b, c: a.clamp(b, c), x, lo, hi)
    check(lambda t, a, b: t.maximum(a, b), x, lo)
    check(lambda t, a: a.clamp(1.0, 3.0), x)
    check(lambda t, a, b: t.atan2(a, b), np.zeros(3), np.zeros(3))


@pytest.mark.parametrize(
    "dtypes",
    [(np.int64, np.float32), (np.int64, np.int64), (np.bool_, np.bool_), (np.float64, np.float32)],
)
def test_dtypes(dtypes):
    a = np.array([[0, 1], [1, 0]]).astype(dtypes[0])
    b = np.array([1, 1]).astype(dtypes[1])
    check(lambda t, x, y: t.atan2(x, y), Arg(a, False), Arg(b, False))
    check(lambda t, x, y: t.maximum(x, y), Arg(a, False), Arg(b, False))
    if dtypes[0] is np.bool_:
        check_error(lambda t, x, y: t.addcmul(x, y, y), Arg(a, False), Arg(b, False))
    else:
        check(lambda t, x, y: t.addcmul(x, y, y), Arg(a, False), Arg(b, False))
    check(lambda t, x: x.clamp(0, 1), Arg(a, False))


def test_clamp_number_dtypes():
    check(lambda t, x: x.clamp(0.5, 3), Arg(np.arange(6).reshape(2, 3), False))
    check(lambda t, x: x.clamp(0, 1), Arg(np.array([True, False]), False))


@pytest.mark.parametrize(
    "bad",
    [
        lambda t, a, b: t.atan2(a, b[:2]),
        lambda t, a, b: t.atan2(a, 1.0),
        lambda t, a, b: t.lerp(a, b[:2], 0.5),
        lambda t, a, b: t.lerp(a, b.double(), 0.5),
        lambda t, a, b: t.lerp(a, b, b.double()),
        lambda t, a, b: t.lerp(a.long(), b.long(), 0.5),
        lambda t, a, b: t.lerp(a.long(), b.long(), b.long()),
        lambda t, a, b: t.addcmul(a, b[:2], b),
        lambda t, a, b: t.addcdiv(a.long(), b.long(), b.long()),
        lambda t, a, b: t.maximum(a, b[:2]),
        lambda t, a, b: t.maximum(a, 1),
        lambda t, a, b: t.minimum(1.0, a),
        lambda t, a, b: a.clamp(),
        lambda t, a, b: a.clamp(b[:2]),
        lambda t, a, b: a.clamp(b, 1),
        lambda t, a, b: a.clamp(1, b),
    ],
)
def test_errors(bad):
    check_error(bad, np.ones((3, 4), np.float32), np.ones((3, 4), np.float32))


@pytest.mark.parametrize(
    "fn",
    [
        lambda a, b, w: gtorch.atan2(a, b),
        lambda a, b, w: gtorch.lerp(a, b, 0.3),
        lambda a, b, w: gtorch.lerp(a, b, w),
        lambda a, b, w: gtorch.addcmul(a, b, w, value=0.7),
        lambda a, b, w: gtorch.addcdiv(a, b, w + 3, value=0.7),
        lambda a, b, w: gtorch.maximum(a, b),
        lambda a, b, w: gtorch.minimum(a, b),
        lambda a, b, w: a.clamp(-0.5, 0.5),
        lambda a, b, w: a.clamp(b, w + 2),
    ],
)
def test_gradcheck(fn):
    rng = np.random.default_rng(7)
    args = [gtorch.tensor(rng.uniform(-1, 1, (2, 3)), requires_grad=True) for _ in range(3)]
    assert gradcheck(fn, *args)
    assert gradgradcheck(fn, *args)


@pytest.mark.parametrize(
    "fn,name",
    [
        (lambda x: x.clamp(0, 1), "ClampBackward"),
        (lambda x: x.clamp(min=0), "CmaxConstantBackward"),
        (lambda x: x.clamp(max=0), "CminConstantBackward"),
        (lambda x: gtorch.maximum(x, x * 2), "CmaxBackward"),
        (lambda x: gtorch.lerp(x, x * 2, 0.5), "LerpBackward"),
        (lambda x: gtorch.addcmul(x, x, x), "AddcmulBackward"),
        (lambda x: gtorch.atan2(x, x), "Atan2Backward"),
    ],
)
def test_legacy_style_names(fn, name):
    from gradshell.printing import set_print_style

    x = gtorch.ones(2, requires_grad=True)
    node = fn(x).grad_fn
    set_print_style("legacy")
    try:
        assert repr(node).startswith(f"<torch.autograd.function.{name} object at 0x")
    finally:
        set_print_style("modern")
    assert repr(node).startswith(f"<{node.name()} object at 0x")


INTEGER_DIVISION_BY_ZERO = """
for f in [lambda: torch.tensor([1, 2]) // 0, lambda: 5 // torch.tensor([0, 1]),
          lambda: torch.tensor([1, 2]).div(0, rounding_mode="floor"),
          lambda: torch.tensor([1, 2]).div(torch.tensor([1, 0]), rounding_mode="trunc"),
          lambda: torch.floor_divide(torch.tensor([3]), torch.tensor([0])),
          lambda: torch.tensor([1, 2]) % 0, lambda: torch.tensor([1.]) // 0]:
    try:
        print(f())
    except RuntimeError as e:  # a tutorial's `except RuntimeError` catches it
        print("RuntimeError", e)
"""


def test_integer_division_by_zero_is_pytorchs_runtime_error():
    from support.tutorials import printed

    assert printed(INTEGER_DIVISION_BY_ZERO, gtorch) == printed(INTEGER_DIVISION_BY_ZERO, torch)
