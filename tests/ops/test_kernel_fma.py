"""The kernels' fast float32 FMA against the exact one, and the bit-level helpers.

``kernels.fp32.fma`` rounds a float64 sum to float32 and redoes only the elements where
that double rounding may differ (float64 midpoints, subnormal results); these tests feed
it exactly those cases and compare with ``core.fma.fma32`` (exact by construction).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradshell.core.fma import fma32
from gradshell.core.kernels import fp32, loops

F32 = np.float32


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a, F32), np.asarray(b, F32)
    return bool(((a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))).all())


def _f32s():
    return st.floats(width=32, allow_nan=True, allow_infinity=True, allow_subnormal=True)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40).flatmap(lambda n: st.tuples(*(hnp.arrays(F32, n, elements=_f32s())
                                                         for _ in range(3)))))  # fmt: skip
def test_fma_matches_exact_fma(abc):
    a, b, c = abc
    with np.errstate(all="ignore"):
        assert _same(fp32.fma(a, b, c), fma32(a, b, c))
        assert _same(fp32.fma(a, b[0], c), fma32(a, b[0], c))


def test_fma_double_rounding_cases():
    # a*b + c lands halfway between two float32s in float64 but not exactly: 1 + 2^-24
    # + 2^-60 (must round up) and 1 + 2^-24 - 2^-60 (down); plus exact ties
    a = np.array([2.0**-12, 2.0**-12, 2.0**-12, -(2.0**-12)], F32)
    b = np.array([2.0**-12 * (1 + 2.0**-23), 2.0**-12 * (1 - 2.0**-23), 2.0**-12,
                  2.0**-12], F32)  # fmt: skip
    c = np.array([1.0, 1.0, 1.0, 1.0], F32)
    assert _same(fp32.fma(a, b, c), fma32(a, b, c))
    rng = np.random.default_rng(0)
    x = rng.integers(1, 1 << 12, 20000).astype(F32)
    y = (rng.integers(1, 1 << 12, 20000) * 2.0**-30).astype(F32)
    z = rng.integers(1, 1 << 24, 20000).astype(F32) * F32(2.0**-20)
    assert _same(fp32.fma(x, y, z), fma32(x, y, z))


def test_fma_true_double_rounding_is_repaired():
    # (1 + 2^-23) * (2^-24 - 2^-47) + (1 + 2^-23) = 1 + 2^-23 + 2^-24 - 2^-70: just below a
    # float32 midpoint, so the FMA rounds down; the float64 sum is the midpoint itself and
    # a second rounding (ties to even) would go up
    a = np.array([1 + 2.0**-23], F32)
    b = np.array([2.0**-24 - 2.0**-47], F32)
    c = np.array([1 + 2.0**-23], F32)
    naive = (a.astype(np.float64) * b + c).astype(F32)
    assert naive[0] == F32(1 + 2.0**-22)
    assert fp32.fma(a, b, c)[0] == F32(1 + 2.0**-23)
    assert fp32.fma(a, b, c, normal=True)[0] == F32(1 + 2.0**-23)


def test_fma_subnormal_and_overflow_results():
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(5000) * 1e-20).astype(F32)
    b = (rng.standard_normal(5000) * 1e-19).astype(F32)
    c = (rng.standard_normal(5000) * 1e-38).astype(F32)
    assert _same(fp32.fma(a, b, c), fma32(a, b, c))
    big = np.full(4, 1.8446743e19, F32)
    with np.errstate(all="ignore"):
        assert _same(fp32.fma(big, big, np.float32(3.4e38)), fma32(big, big, F32(3.4e38)))


def test_normal_flag_skips_only_the_subnormal_test():
    a = np.array([1.5, 2.0**-70], F32)
    b = np.array([3.0, 2.0**-70], F32)
    c = np.array([0.25, 0.0], F32)
    assert _same(fp32.fma(a, b, c), fma32(a, b, c))
    assert _same(fp32.fma(a[:1], b[:1], c[:1], normal=True), fma32(a[:1], b[:1], c[:1]))


def test_exponent_helpers_on_every_kind_of_float():
    x = np.array([1.0, 1.5, 0.75, 3.0e38, 1.2e-38, 1e-40, 0.0, -0.0, -2.5, np.inf, np.nan],
                 F32)  # fmt: skip
    with np.errstate(all="ignore"):
        _, e = np.frexp(np.abs(x).astype(np.float64))
        want = (e - 1).astype(F32)
    got = fp32.getexp(x)
    finite = np.isfinite(x) & (x != 0)
    assert _same(got[finite], want[finite])
    assert got[6] == -np.inf and got[9] == np.inf and np.isnan(got[10])
    normal = x[:5]  # the bit path
    m = fp32.getmant(normal)
    assert ((m >= 0.75) & (m < 1.5)).all()
    assert _same(fp32.getmant(normal), fp32.getmant(np.concatenate([normal, x[5:6]]))[:5])


def test_scalar_indices_match_the_mask():
    for n in (0, 1, 31, 32, 33, 40000, 70001):
        for threads in (1, 2, 4):
            mask = loops.scalar_mask(n, F32, threads)
            assert np.flatnonzero(mask).tolist() == loops.scalar_indices(n, F32, threads).tolist()


def test_blockwise_splits_and_keeps_shape():
    calls = []

    @fp32.blockwise
    def double(x, k):
        calls.append(x.size)
        return x * k

    x = np.arange(5 * (fp32.CHUNK // 2 + 3), dtype=F32).reshape(-1, 5)
    r = double(x, F32(2))
    assert r.shape == x.shape and (r == 2 * x).all() and max(calls) <= fp32.CHUNK


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40).flatmap(lambda n: st.tuples(hnp.arrays(F32, n, elements=_f32s()),
                                                      hnp.arrays(F32, n, elements=_f32s()))))  # fmt: skip
def test_product_and_reciprocal_errors_are_the_fma(xy):
    x, y = xy
    with np.errstate(all="ignore"):
        rx = x * y
        assert _same(fp32.product_error(x, y, rx), fma32(x, y, -rx))
        t = F32(1) / x
        assert _same(fp32.reciprocal_error(x, t), fma32(-x, t, np.ones_like(x)))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 30).flatmap(lambda n: st.tuples(
    hnp.arrays(np.float64, n, elements=st.floats(allow_nan=True, allow_infinity=True)),
    hnp.arrays(np.float64, n, elements=st.floats(allow_nan=True, allow_infinity=True)))))  # fmt: skip
def test_float64_product_and_reciprocal_errors_are_the_fma(xy):
    from gradshell.core.fma import fma64
    from gradshell.core.kernels import sleef_f64

    x, y = xy
    with np.errstate(all="ignore"):
        rx = x * y
        want = fma64(x, y, -rx)
        got = sleef_f64._prod_err(x, y, rx)
        assert (
            (got.view(np.uint64) == want.view(np.uint64)) | (np.isnan(got) & np.isnan(want))
        ).all()
        t = 1.0 / x
        want = fma64(-x, t, 1.0)
        got = sleef_f64._recip_err(x, t)
        assert (
            (got.view(np.uint64) == want.view(np.uint64)) | (np.isnan(got) & np.isnan(want))
        ).all()
