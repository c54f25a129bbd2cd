"""Differential tests: gradshell's modern style against real PyTorch 2.13, byte for byte.

Hypothesis draws the structure of each case (dtype, shape, value ranges, special values,
autograd flags, print options); a NumPy generator seeded by hypothesis fills in the
elements, so that tensors of thousands of elements stay cheap to generate. The same
values go into a torch tensor and into a test double of gradshell's tensor protocol, and
the two reprs must agree exactly (object addresses masked).
"""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from printing_doubles import FakeNode, FakeParameter, FakeTensor
from printing_strategies import (
    DTYPES,
    FLOATS,
    explicit_floats,
    make_values,
    options,
    shapes,
    value_plans,
)

from gradshell.core import dtypes
from gradshell.printing import (
    node_repr,
    reset_printoptions,
    return_types_repr,
    set_printoptions,
    size_repr,
    tensor_format,
)

torch = pytest.importorskip("torch")

from gradshell import torch as gtorch  # noqa: E402 - after the skip: no torch, no oracle

ADDRESS = re.compile(r"0x[0-9a-fA-F]+")

# Deterministic by default (CI); GRADSHELL_RANDOM_EXAMPLES=1 explores fresh examples.
RANDOM = bool(os.environ.get("GRADSHELL_RANDOM_EXAMPLES"))

SETTINGS = settings(
    max_examples=2000,
    deadline=None,
    derandomize=not RANDOM,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def mask(text: str) -> str:
    return ADDRESS.sub("0xADDR", text)


@st.composite
def tensor_cases(draw) -> dict:
    dtype = draw(st.sampled_from(DTYPES))
    branch = draw(st.integers(0, 7)) if dtype in FLOATS else 7
    if branch <= 2:
        if branch == 0:
            # Two values whose ratio sits on the scientific-mode boundary (max/min = 1000).
            base = draw(st.sampled_from([1.0, 0.5, 0.25, 2.0, 4.0, 0.125, 1e-3, 0.1, 1e5]))
            factor = draw(st.sampled_from([1000.0, 1000.5, 999.5, 1e4]))
            elems = [base, base * factor] + draw(st.lists(st.sampled_from([0.0, -0.0]), max_size=2))
        else:
            elems = draw(st.lists(explicit_floats, min_size=0, max_size=12))
        shape = (len(elems),) if draw(st.booleans()) or len(elems) != 1 else ()
        with np.errstate(over="ignore"):
            values = np.array(elems, dtype=np.float64).astype(getattr(np, dtype)).reshape(shape)
    else:
        shape = draw(shapes())
        values = make_values(dtype, shape, draw(value_plans(dtype)))
    autograd = "none"
    if dtype in FLOATS:
        autograd = draw(st.sampled_from(["none", "none", "leaf", "mul", "clone", "view", "param"]))
    elif draw(st.integers(0, 9)) == 0:
        autograd = "param"  # a Parameter that does not require grad
    default64 = dtype in FLOATS and draw(st.integers(0, 9)) == 0
    return {
        "dtype": dtype,
        "values": values,
        "autograd": autograd,
        "options": draw(options()),
        "default64": default64,
    }


def build_pair(dtype: str, values: np.ndarray, autograd: str):
    """The same tensor in torch and as a gradshell test double."""
    t = torch.from_numpy(values.copy())
    ours_dtype = dtypes.from_name(dtype)
    floating = dtype in FLOATS
    if autograd == "param":
        tp = torch.nn.Parameter(t, requires_grad=floating)
        return tp, FakeParameter(values, ours_dtype, requires_grad=floating)
    if autograd == "leaf":
        return t.requires_grad_(), FakeTensor(values, ours_dtype, requires_grad=True)
    if autograd in ("mul", "clone", "view"):
        leaf = t.requires_grad_()
        if autograd == "mul":
            r = leaf * 1  # exact: keeps -0.0, nan and inf as they are
        elif autograd == "clone":
            r = leaf.clone()
        else:
            r = leaf.view(tuple(values.shape))
        node = FakeNode(type(r.grad_fn).__name__)
        return r, FakeTensor(values, ours_dtype, grad_fn=node)
    return t, FakeTensor(values, ours_dtype)


def build_gradshell(values: np.ndarray, autograd: str):
    """The same tensor made by gradshell's own torch (None where it has no such object)."""
    if autograd == "param":
        return None  # torch.nn is not part of gradshell's torch yet
    t = gtorch.from_numpy(values.copy())
    if autograd == "none":
        return t
    leaf = t.requires_grad_()
    if autograd == "leaf":
        return leaf
    if autograd == "mul":
        return leaf * 1
    if autograd == "clone":
        return leaf.clone()
    return leaf.view(tuple(values.shape))


def apply_options(opts: dict, default64: bool) -> None:
    torch.set_printoptions(**opts)
    set_printoptions(**opts)
    if default64:
        torch.set_default_dtype(torch.float64)
        dtypes.set_default_dtype(dtypes.float64)


def restore_options() -> None:
    torch.set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)
    reset_printoptions()
    dtypes.set_default_dtype(dtypes.float32)


def _check_tensor_repr(case) -> None:
    theirs, ours = build_pair(case["dtype"], case["values"], case["autograd"])
    real = build_gradshell(case["values"], case["autograd"])
    apply_options(case["options"], case["default64"])
    try:
        expected = repr(theirs)
        got = repr(ours)
        assert str(ours) == got
        got_real = None if real is None else (repr(real), str(real))
    finally:
        restore_options()
    assert got == expected, f"\noptions={case['options']}\nexpected:\n{expected}\ngot:\n{got}"
    if got_real is not None:
        assert got_real == (expected, expected), "gradshell's own tensor printed differently"
    # What the case exercised (shown by --hypothesis-show-statistics).
    event(f"ndim={case['values'].ndim}")
    for feature, present in [
        ("summarised", "..." in got),
        ("scientific", "e+" in got or "e-" in got),
        ("wrapped rows", ",\n" in got and case["values"].ndim == 1),
        ("suffix on own line", ",\n       " in got and "=" in got.split(",\n")[-1]),
        ("nan/inf", "nan" in got or "inf" in got),
    ]:
        if present:
            event(feature)


#: cases the default run compares (recorded for runs without PyTorch); the full sweep of
#: SETTINGS's 2,000 is the slow tier, compared live (CI runs it with --run-slow)
SAMPLE = 300


@settings(SETTINGS, max_examples=SAMPLE)
@given(case=tensor_cases())
def test_tensor_repr_matches_pytorch(case):
    _check_tensor_repr(case)


@pytest.mark.slow
@SETTINGS
@given(case=tensor_cases())
def test_tensor_repr_matches_pytorch_full_sweep(case):
    _check_tensor_repr(case)


# -- small objects ---------------------------------------------------------------------------

FORMAT_SPECS = ["", ".2f", ".3e", ">12", "g", ".1%", "d", "05d", "+.1f", "x", "s", "^9.3"]


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
        return (type(e).__name__, str(e))


@st.composite
def object_cases(draw):
    kind = draw(st.sampled_from(["size", "format", "max", "sort", "tuple", "list", "node"]))
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(shapes()) if kind in ("tuple", "list", "size") else None
    if kind == "format":
        shape = draw(st.sampled_from([(), (), (), (2,), (1,)]))
    if kind in ("max", "sort"):
        shape = draw(st.sampled_from([(3,), (2, 3), (4, 1), (2, 2, 2)]))
        dtype = draw(st.sampled_from(["float32", "float64", "int64", "int32"]))
    if kind == "node":
        shape = (2,)
        dtype = "float32"
    values = make_values(dtype, shape, draw(value_plans(dtype)))
    autograd = "none"
    if dtype in FLOATS:
        autograd = draw(st.sampled_from(["none", "leaf", "mul", "param"]))
    return {
        "kind": kind,
        "dtype": dtype,
        "values": values,
        "autograd": autograd,
        "spec": draw(st.sampled_from(FORMAT_SPECS)),
        "dim": draw(st.integers(0, len(shape) - 1)) if shape else 0,
    }


def _fake_of(t: torch.Tensor) -> FakeTensor:
    values = t.detach().numpy().copy()
    ours_dtype = dtypes.from_name(str(t.dtype))
    node = FakeNode(type(t.grad_fn).__name__) if t.grad_fn is not None else None
    return FakeTensor(values, ours_dtype, requires_grad=t.requires_grad, grad_fn=node)


OBJECT_SETTINGS = settings(SETTINGS, max_examples=600)


@settings(OBJECT_SETTINGS, max_examples=150)
@given(case=object_cases())
def test_object_repr_matches_pytorch(case):
    _check_object_repr(case)


@pytest.mark.slow  # the full sweep, compared live
@OBJECT_SETTINGS
@given(case=object_cases())
def test_object_repr_matches_pytorch_full_sweep(case):
    _check_object_repr(case)


def _check_object_repr(case) -> None:
    theirs, ours = build_pair(case["dtype"], case["values"], case["autograd"])
    kind = case["kind"]
    if kind == "size":
        assert size_repr(ours.shape) == repr(theirs.shape)
        assert repr(ours.dtype) == repr(theirs.dtype)
        assert repr(ours.device) == repr(theirs.device)
    elif kind == "format":
        spec = case["spec"]
        assert _outcome(lambda: tensor_format(ours, spec)) == _outcome(lambda: format(theirs, spec))
    elif kind in ("max", "sort"):
        result = getattr(theirs, kind)(case["dim"])
        fields = [(f, _fake_of(getattr(result, f))) for f in ("values", "indices")]
        assert return_types_repr(kind, fields) == repr(result)
    elif kind in ("tuple", "list"):
        other_t, other = build_pair("int32", np.arange(3, dtype=np.int32), "none")
        if kind == "tuple":
            assert repr((ours, other, 1.5)) == repr((theirs, other_t, 1.5))
        else:
            assert repr([ours]) == repr([theirs])
            assert str([ours, other]) == str([theirs, other_t])
    else:
        y = theirs * 2 if theirs.requires_grad else (theirs.requires_grad_() * 2)
        node = FakeNode(type(y.grad_fn).__name__)
        assert mask(node_repr(node)) == mask(repr(y.grad_fn))
        assert mask(node_repr(node, ipython=True)) == mask(repr(y.grad_fn)).replace(
            " object at ", " at "
        )
        nexts = tuple(
            (None if fn is None else FakeNode(type(fn).__name__), i)
            for fn, i in y.grad_fn.next_functions
        )
        assert mask(repr(nexts)) == mask(repr(y.grad_fn.next_functions))
