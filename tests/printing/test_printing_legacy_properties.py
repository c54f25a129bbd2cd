"""Legacy style, property-based: there is no PyTorch 0.3 to run, so instead of an oracle
these tests check what must hold for every tensor: the frame (leading newline, footer,
`Variable containing:`), summarisation exactly at `numel >= threshold`, and — the part
that matters most — that the numbers printed are the tensor's numbers, to the precision
printed, scale factors included.
"""

from __future__ import annotations

import math
import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from printing_doubles import FakeNode, FakeTensor
from printing_strategies import DTYPES, FLOATS, make_values, options, shapes, value_plans

from gradshell.core import dtypes
from gradshell.printing import get_printoptions, set_print_style, set_printoptions, tensor_repr

NUMBER = re.compile(r"-?(?:nan|inf|\d+(?:\.\d*)?(?:e[+-]\d+)?)")
SCALE_LINE = re.compile(r"^ *(\d\.\d{5}e[+-]\d+) \*$")
KNOWN_ERRORS = ("cannot summarise a tensor with edgeitems=0", "leaves no room for one")


@st.composite
def legacy_cases(draw):
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(shapes())
    values = make_values(dtype, shape, draw(value_plans(dtype)))
    opts = draw(options())
    opts.pop("sci_mode", None)  # 0.3 had no sci_mode
    flags = draw(st.sampled_from(["plain", "leaf", "result", "variable"]))
    return dtype, values, opts, flags


def printed_numbers(body: str) -> list[float]:
    """Every number in a legacy body, multiplied by the scale line above it."""
    numbers, scale = [], 1.0
    for line in body.split("\n"):
        m = SCALE_LINE.match(line)
        if m:
            scale = float(m.group(1))
            continue
        if line.startswith("Columns") or ",.,.) =" in line:
            continue
        numbers.extend(float(tok) * scale for tok in NUMBER.findall(line))
    return numbers


def check_values(values: np.ndarray, numbers: list[float], precision: int) -> None:
    actual = values.reshape(-1).astype(np.float64)
    assert len(numbers) == actual.size
    printed = np.array(numbers)
    assert np.isnan(printed).sum() == np.isnan(actual).sum()
    for sign in (1, -1):
        assert np.sum(printed == sign * np.inf) == np.sum(actual == sign * np.inf)
    finite_p = np.sort(printed[np.isfinite(printed)])
    finite_a = np.sort(actual[np.isfinite(actual)])
    # Rounding is monotone, so sorted printed values pair with sorted actual values.
    # Fixed point is off by at most half a unit in the last printed place (times the
    # scale factor); scientific notation by half a unit relative to the value.
    span = max(1.0, float(np.max(np.abs(finite_a)))) if finite_a.size else 1.0
    ulp = 0.5 * 10.0**-precision
    tolerance = np.maximum(ulp * span, ulp * np.abs(finite_a)) * 1.000001 + 1e-300
    assert np.all(np.abs(finite_p - finite_a) <= tolerance)


SWEEP = settings(
    max_examples=700,
    deadline=None,
    database=None,
    derandomize=not os.environ.get("GRADSHELL_RANDOM_EXAMPLES"),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@settings(SWEEP, max_examples=150)
@given(case=legacy_cases())
def test_legacy_frame_and_values(case):
    _check_legacy_frame_and_values(case)


@pytest.mark.slow  # the full sweep (CI runs it with --run-slow)
@SWEEP
@given(case=legacy_cases())
def test_legacy_frame_and_values_full_sweep(case):
    _check_legacy_frame_and_values(case)


def _check_legacy_frame_and_values(case) -> None:
    dtype, values, opts, flags = case
    set_print_style("legacy")
    set_printoptions(**opts)
    o = get_printoptions()
    t = FakeTensor(
        values,
        dtypes.from_name(dtype),
        requires_grad=flags == "leaf" and dtype in FLOATS,
        grad_fn=FakeNode("X", "torch.autograd.function.X") if flags == "result" else None,
        legacy_variable=flags == "variable",
    )
    try:
        text = tensor_repr(t)
    except ValueError as e:
        assert any(k in str(e) for k in KNOWN_ERRORS), e
        return
    variable = t.requires_grad or t.grad_fn is not None or flags == "variable"
    if variable:
        assert text.startswith("Variable containing:")
        text = text.removeprefix("Variable containing:")
    name = "torch." + dtypes.from_name(dtype).legacy_name
    if values.size == 0:
        assert text == f"[{name} with no dimension]\n"
        return
    shape = values.shape or (1,)
    footer = f"[{name} of size {'x'.join(map(str, shape))}]\n"
    assert text.startswith("\n") and text.endswith(footer)
    body = text[1 : -len(footer)]
    summarised = values.size >= o["threshold"]
    marks = "\u22ee" in body or "\u22f1" in body or "..." in body
    if not summarised:
        assert not marks
    elif len(shape) == 1 or (len(shape) == 2 and max(shape) > 2 * o["edgeitems"]):
        assert marks
    if not summarised:
        check_values(values, printed_numbers(body), o["precision"])


def test_integer_abs_overflow_does_not_matter():
    # abs(int8(-128)) overflows in int8; 0.3 worked in doubles, and so do we.
    set_print_style("legacy")
    t = FakeTensor(np.array([-128, 5], np.int8), dtypes.int8)
    assert tensor_repr(t) == "\n-128\n   5\n[torch.CharTensor of size 2]\n"


def test_scientific_columns_for_huge_float64():
    set_print_style("legacy")
    t = FakeTensor(np.array([1e-120, 1e150]), dtypes.float64)
    assert tensor_repr(t) == "\n 1.0000e-120\n 1.0000e+150\n[torch.DoubleTensor of size 2]\n"
    assert math.isclose(float("1.0000e+150"), 1e150)
