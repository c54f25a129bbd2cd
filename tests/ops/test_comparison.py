"""Comparisons: eq ne lt le gt ge (functions, methods, operators, with tensors and numbers,
broadcasting), isnan, isfinite, isclose, allclose, equal — bool results, no gradient."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from support.op_checks import Arg, check, check_error

torch = pytest.importorskip("torch")

ELEMS = st.sampled_from([0.0, 1.0, -1.0, 2.5, np.inf, -np.inf, np.nan])


@st.composite
def pair(draw):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3))
    a, b = (draw(hnp.arrays(np.float32, s, elements=ELEMS)) for s in shapes.input_shapes)
    return a, b


OPS = {
    "eq": lambda t, a, b: t.eq(a, b),
    "ne": lambda t, a, b: a.ne(b),
    "lt": lambda t, a, b: a < b,
    "le": lambda t, a, b: a <= b,
    "gt": lambda t, a, b: t.gt(a, b),
    "ge": lambda t, a, b: a >= b,
    "==": lambda t, a, b: a == b,
    "!=": lambda t, a, b: a != b,
    "isclose": lambda t, a, b: t.isclose(a, b),
}


@pytest.mark.parametrize("name", sorted(OPS))
@settings(max_examples=15, deadline=None)
@given(ab=pair())
def test_comparisons(name, ab):
    a, b = ab
    check(OPS[name], a, b)


@settings(max_examples=15, deadline=None)
@given(
    a=hnp.arrays(np.float32, hnp.array_shapes(min_dims=0, max_dims=3, max_side=3), elements=ELEMS),
    s=st.sampled_from([0, 1, 2.5, -1.0]),
)
def test_with_numbers_and_predicates(a, s):
    check(lambda t, x: x > s, a)
    check(lambda t, x: s >= x, a)
    check(lambda t, x: t.eq(x, s), a)
    check(lambda t, x: t.isnan(x), a)
    check(lambda t, x: t.isfinite(x), a)
    check(lambda t, x: x.isinf(), a)
    check(lambda t, x: t.isclose(x, x + 1e-9, equal_nan=True), a)
    check(lambda t, x: t.allclose(x, x * 1.0), a)
    check(lambda t, x: t.equal(x, x.clone()), a)


def test_mixed_dtypes_and_integers():
    a = Arg(np.array([1, 2, 3]), False)
    b = np.array([1.0, 2.5, 3.0], np.float32)
    check(lambda t, x, y: x == y, a, b)
    check(lambda t, x, y: x < y, a, b)
    check(lambda t, x: t.equal(x, x.long()), a)
    check(lambda t, x, y: t.equal(x, y), a, b)


def test_results_never_require_grad():
    check(
        lambda t, x, y: (x < y, t.eq(x, y), x.isnan()),
        np.ones(3, np.float32),
        np.zeros(3, np.float32),
    )


@pytest.mark.parametrize(
    "bad",
    [
        lambda t, x: x == x[:2],
        lambda t, x: t.lt(x, x[:, :2]),
        lambda t, x: t.isclose(x, x.long()),
        lambda t, x: t.allclose(x, x.double()),
    ],
)
def test_errors(bad):
    check_error(bad, np.ones((3, 4), np.float32))
