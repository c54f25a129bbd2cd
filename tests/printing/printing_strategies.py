"""Hypothesis strategies for printing tests: dtypes, shapes, values, print options.

Hypothesis draws the structure (dtype, shape, value ranges, special values); a NumPy
generator seeded by hypothesis fills in the elements, so tensors of thousands of elements
stay cheap to generate.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]
FLOATS = {"float16", "float32", "float64"}
MAX_NUMEL = 3000


@st.composite
def shapes(draw) -> tuple[int, ...]:
    ndim = draw(st.integers(0, 5))
    shape: list[int] = []
    budget = MAX_NUMEL
    for _ in range(ndim):
        # Mostly small sides, sometimes long ones (to exercise wrapping and summarising),
        # now and then an empty one.
        side = draw(
            st.one_of(
                st.integers(1, 4),
                st.integers(1, 12),
                st.integers(0, max(0, min(budget, 1200))),
            )
        )
        side = min(side, budget)
        shape.append(side)
        budget = max(1, budget // max(side, 1))
    return tuple(shape)


@st.composite
def value_plans(draw, dtype: str) -> dict:
    plan: dict = {"seed": draw(st.integers(0, 2**32 - 1))}
    if dtype in FLOATS:
        lo = draw(st.integers(-10, 12))
        hi = draw(st.integers(lo, 12))
        plan.update(
            lo=lo,
            hi=hi,
            sign=draw(st.sampled_from(["+", "-", "mixed"])),
            integral=draw(st.booleans()),
            zeros=draw(st.sampled_from([0.0, 0.0, 0.2, 1.0])),
            negzero=draw(st.booleans()),
            nan=draw(st.sampled_from([0.0, 0.0, 0.1, 1.0])),
            inf=draw(st.sampled_from([0.0, 0.0, 0.1])),
            constant=draw(st.sampled_from([False, False, False, True])),
        )
    elif dtype != "bool":
        info = np.iinfo(getattr(np, dtype))
        k = draw(st.integers(0, 19))
        hi = min(int(info.max), 10**k)
        lo = max(int(info.min), -(10**k)) if draw(st.booleans()) else 0
        plan.update(lo=lo, hi=hi)
    else:
        plan.update(p=draw(st.sampled_from([0.0, 0.5, 1.0])))
    return plan


def make_values(dtype: str, shape: tuple[int, ...], plan: dict) -> np.ndarray:
    rng = np.random.default_rng(plan["seed"])
    n = math.prod(shape)
    np_dtype = getattr(np, dtype) if dtype != "bool" else np.bool_
    if dtype == "bool":
        return (rng.random(n) < plan["p"]).reshape(shape)
    if dtype not in FLOATS:
        return rng.integers(plan["lo"], plan["hi"], size=n, endpoint=True, dtype=np_dtype).reshape(
            shape
        )
    mags = 10.0 ** rng.uniform(plan["lo"], plan["hi"], n)
    if plan["constant"] and n:
        mags[:] = mags[0]
    if plan["integral"]:
        mags = np.round(mags)
    if plan["sign"] == "-":
        mags = -mags
    elif plan["sign"] == "mixed":
        mags = np.where(rng.random(n) < 0.5, -mags, mags)
    mags[rng.random(n) < plan["zeros"]] = -0.0 if plan["negzero"] else 0.0
    mags[rng.random(n) < plan["nan"]] = np.nan
    inf = rng.random(n) < plan["inf"]
    mags[inf] = np.where(rng.random(int(inf.sum())) < 0.5, np.inf, -np.inf)
    with np.errstate(over="ignore"):
        return mags.astype(np_dtype).reshape(shape)


# Values on the edges of PyTorch's rules: max/min = 1000, min = 1e-4, max = 1e8,
# rounding that adds a digit, signed zeros, non-finite values.
BOUNDARY = [0.0, -0.0, 0.5, 1.0, 2.0, -1.0, 1000.0, 1000.5, 0.001, 0.1, 100.0, 1e-4]
BOUNDARY += [1.00001e-4, 9.9999e-5, 1e8, 100000001.0, 99999.5, 9.99995, -9.99995, 1e12]
BOUNDARY += [math.nan, math.inf, -math.inf, 1e-10, 123456.789, -0.00012345]

explicit_floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(1e-10, 1e12),
    st.floats(-1e12, -1e-10),
    st.integers(-(10**6), 10**6).map(float),
    st.sampled_from(BOUNDARY),
    st.sampled_from(BOUNDARY),
)


@st.composite
def options(draw) -> dict:
    if draw(st.integers(0, 2)) == 0:
        return {}  # the defaults, often
    opts: dict = {}
    if draw(st.booleans()):
        opts["profile"] = draw(st.sampled_from(["default", "short", "full"]))
    if draw(st.booleans()):
        opts["precision"] = draw(st.integers(0, 10))
    if draw(st.booleans()):
        opts["threshold"] = draw(st.sampled_from([0, 1, 5, 10, 100, 999, 1000, 2999, math.inf]))
    if draw(st.booleans()):
        opts["edgeitems"] = draw(st.integers(0, 5))
    if draw(st.booleans()):
        opts["linewidth"] = draw(st.sampled_from([1, 10, 20, 40, 60, 79, 80, 81, 120, 200]))
    if draw(st.booleans()):
        opts["sci_mode"] = draw(st.sampled_from([None, True, False]))
    return opts
