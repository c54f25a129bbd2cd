"""Elementwise functions of one tensor: erf, sinh, cosh, asin, acos, atan, softplus (and the
older ones they build on), checked by finite differences and against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from support.op_checks import Arg, check, check_error, gradcheck, gradgradcheck

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")

SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)


def arrays(dtype=np.float32, lo=-3.0, hi=3.0, shape=SHAPES):
    """Float arrays with a mix of 'nice' values (0, ±0.5, ±1: kinks and ties) and random ones."""
    elems = st.one_of(
        st.sampled_from([0.0, 0.5, -0.5, 1.0, -1.0]),
        st.floats(lo, hi, allow_nan=False, width=32),
    )
    return hnp.arrays(dtype, shape, elements=elems)


UNARY = {
    "erf": lambda t, x: t.erf(x),
    "sinh": lambda t, x: t.sinh(x),
    "cosh": lambda t, x: t.cosh(x),
    "asin": lambda t, x: t.asin(x),
    "acos": lambda t, x: t.acos(x),
    "atan": lambda t, x: t.atan(x),
    "erf_method": lambda t, x: x.erf(),
    "asin_method": lambda t, x: x.asin(),
    "softplus": lambda t, x: t.nn.functional.softplus(x),
    "softplus_beta": lambda t, x: t.nn.functional.softplus(x, beta=2.0, threshold=1.0),
    "log1p": lambda t, x: t.log1p(x),
    "expm1": lambda t, x: t.expm1(x),
    "rsqrt": lambda t, x: t.rsqrt(x),
    "reciprocal": lambda t, x: t.reciprocal(x),
    "sign": lambda t, x: t.sign(x),
    "floor": lambda t, x: t.floor(x),
    "ceil": lambda t, x: t.ceil(x),
    "round": lambda t, x: t.round(x),
    "trunc": lambda t, x: t.trunc(x),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@settings(max_examples=12, deadline=None)
@given(x=arrays())
def test_unary_matches_pytorch(name, x):
    check(UNARY[name], x)


@pytest.mark.parametrize("name", ["erf", "sinh", "cosh", "asin", "acos", "atan"])
@pytest.mark.parametrize("dtype", [np.int64, np.bool_])
def test_integer_inputs_promote_to_float(name, dtype):
    x = np.array([0, 1, 1, 0], dtype=dtype)
    check(UNARY[name], Arg(x, False), backward=False)


@pytest.mark.parametrize("name", ["erf", "sinh", "cosh", "asin", "acos", "atan"])
def test_float64_values(name):
    x = np.linspace(-0.95, 0.95, 7)
    check(UNARY[name], x)


@pytest.mark.parametrize(
    "name", ["erf", "sinh", "cosh", "asin", "acos", "atan", "softplus", "softplus_beta"]
)
def test_gradcheck(name):
    rng = np.random.default_rng(3)
    x = gtorch.tensor(rng.uniform(-0.9, 0.9, (2, 3)), requires_grad=True)
    fn = UNARY[name]
    assert gradcheck(lambda a: fn(gtorch, a), x)
    assert gradgradcheck(lambda a: fn(gtorch, a), x)


def test_softplus_threshold_region_is_identity():
    x = np.array([-30.0, -1.0, 0.0, 5.0, 25.0, 100.0], dtype=np.float32)
    check(UNARY["softplus"], x)
    check(UNARY["softplus_beta"], x)


def test_softplus_rejects_integers():
    check_error(lambda t, x: t.nn.functional.softplus(x), np.arange(3))


def test_inplace_variants():
    for name in ("erf", "sinh", "cosh", "asin", "acos", "atan"):
        check(lambda t, x, n=name: getattr(x.clone(), n + "_")(), np.linspace(-0.5, 0.5, 5))


@settings(max_examples=20, deadline=None)
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=3),
    data=st.data(),
)
def test_where(shapes, data):
    c_shape, a_shape, b_shape = shapes.input_shapes
    cond = Arg(data.draw(hnp.arrays(np.bool_, c_shape)), False)
    a = data.draw(arrays(shape=st.just(a_shape)))
    b = data.draw(arrays(shape=st.just(b_shape)))
    check(lambda t, c, x, y: t.where(c, x, y), cond, a, b)
    check(lambda t, c, x: t.where(c, x, 0.5), cond, a)
    check(lambda t, c, y: t.where(c, 2.0, y), cond, b)
    check(lambda t, c, x, y: x.where(c, y), cond, a, b)
    check(lambda t, c, x, y: t.where(c, x, y), cond, a, Arg(b, False))
