"""sum and mean round exactly as PyTorch's CPU kernels do: bit for bit against real PyTorch,
over sizes, shapes, dims/keepdim, dtypes (and dtype=), layouts (transposed, sliced,
expanded, unsqueezed), values and thread counts; the lessons' printed values too. Then
vector_norm, var/std and cumsum/cumprod, which follow PyTorch's order as well."""

from __future__ import annotations

import contextlib
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gradshell import torch as gtorch
from gradshell.ops import summation

torch = pytest.importorskip("torch")

DTYPES = {
    np.float32: torch.float32,
    np.float64: torch.float64,
    np.float16: torch.float16,
}


def same_bits(ours, theirs) -> bool:
    """Equal shape, dtype and bits; NaNs only need to sit in the same places."""
    a, b = np.asarray(ours), np.asarray(theirs)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    nan = np.isnan(a)
    if not np.array_equal(nan, np.isnan(b)):
        return False
    return a[~nan].tobytes() == b[~nan].tobytes()


@contextlib.contextmanager
def threads(n: int):
    """Run PyTorch and the emulation with the same intra-op thread count."""
    before_torch, before_ours = torch.get_num_threads(), summation.get_num_threads()
    torch.set_num_threads(n)
    summation.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before_torch)
        summation.set_num_threads(before_ours)


def values(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    if kind == "normal":
        return rng.standard_normal(n)
    if kind == "uniform":
        return rng.uniform(-1, 1, n)
    if kind == "integers":
        return rng.integers(-8, 9, n).astype(np.float64)
    if kind == "near_one":  # long products stay finite
        return (1 + rng.standard_normal(n) * 1e-3) * rng.choice([-1.0, 1.0], n)
    # mixed magnitudes: the order of additions matters most here
    return rng.standard_normal(n) * 10.0 ** rng.integers(-6, 7, n)


KINDS = st.sampled_from(["normal", "uniform", "integers", "mixed"])


def check(a: np.ndarray, t, dims, keepdim: bool, dtype=None, fn: str = "sum") -> None:
    """Our sum/mean of the array `a` against PyTorch's of the tensor `t` (same layout)."""
    tdt = DTYPES[dtype] if dtype is not None else None
    if dims is None:
        expected = getattr(t, fn)(dtype=tdt)
        if keepdim:
            expected = getattr(t, fn)(dim=tuple(range(t.dim())), keepdim=True, dtype=tdt)
    else:
        expected = getattr(t, fn)(dim=dims, keepdim=keepdim, dtype=tdt)
    ours = getattr(summation, "torch_" + fn)(a, dims, keepdim, dtype)
    assert same_bits(ours, expected.numpy()), (fn, a.shape, a.strides, dims, keepdim, dtype)


# -- 1-D sums of every size ------------------------------------------------------------------
@settings(max_examples=120, deadline=None)
@given(
    n=st.integers(0, 5000),
    dtype=st.sampled_from(list(DTYPES)),
    kind=KINDS,
    fn=st.sampled_from(["sum", "mean"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_1d_every_size(n, dtype, kind, fn, seed):
    a = values(np.random.default_rng(seed), n, kind).astype(dtype)
    with threads(1):
        check(a, torch.from_numpy(a), None, False, fn=fn)


@pytest.mark.parametrize("n", [1, 3, 7, 8, 15, 17, 31, 33, 100, 127, 128, 129, 1000, 4097])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_1d_sizes_that_differ_from_numpy(n, dtype):
    a = values(np.random.default_rng(n), n, "normal").astype(dtype)
    check(a, torch.from_numpy(a), None, False)
    check(a, torch.from_numpy(a), None, False, fn="mean")


@pytest.mark.parametrize("n", [32767, 32768, 32769, 100_003, 1_000_000])
@pytest.mark.parametrize("nthreads", [1, 2, 3])
def test_large_sums_split_across_threads(n, nthreads):
    rng = np.random.default_rng(n + nthreads)
    a = values(rng, n, "mixed").astype(np.float32)
    with threads(nthreads):
        check(a, torch.from_numpy(a), None, False)
        if n == 1_000_000:
            check(a.astype(np.float16), torch.from_numpy(a.astype(np.float16)), None, False)
            b = a.astype(np.float64)
            check(b, torch.from_numpy(b), None, False, fn="mean")


@pytest.mark.parametrize(
    ("shape", "dims"),
    [
        ((600_000, 4), (0,)),  # 2**19+ rows: the cascade's blocks grow to 32 items
        ((4, 300_000), (1,)),
        ((1000, 300), (0,)),  # columns split among threads on 128-byte boundaries
        ((300, 1000), (1,)),
        ((7, 5, 3000), (0, 2)),
        ((3000, 3, 5), (1,)),
    ],
)
@pytest.mark.parametrize("nthreads", [1, 2, 4])
@pytest.mark.slow  # megabytes of PyTorch's answers: compared live only (CI: --run-slow)
def test_large_dim_sums(shape, dims, nthreads):
    a = values(np.random.default_rng(len(shape) + nthreads), int(np.prod(shape)), "normal")
    a = a.astype(np.float32).reshape(shape)
    with threads(nthreads):
        check(a, torch.from_numpy(a), dims, False)
        rev = tuple(range(a.ndim))[::-1]
        check(a.transpose(rev), torch.from_numpy(a).permute(rev), dims, True, fn="mean")
        h = a[..., ::3].astype(np.float16)
        check(h, torch.from_numpy(h), dims, False)


# -- shapes, dims, layouts -------------------------------------------------------------------
@st.composite
def layouts(draw, kinds=KINDS):
    """An array and the same tensor, through the same random views (permute, step slices,
    unsqueeze, expand), with dims to reduce."""
    nd = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 9), min_size=nd, max_size=nd)))
    dtype = draw(st.sampled_from(list(DTYPES)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    a = values(rng, int(np.prod(shape)), draw(kinds)).astype(dtype).reshape(shape)
    t = torch.from_numpy(a)
    for op in draw(
        st.lists(st.sampled_from(["permute", "slice", "expand", "unsqueeze"]), max_size=3)
    ):
        nd = a.ndim
        if op == "permute" and nd >= 2:
            perm = draw(st.permutations(range(nd)))
            a, t = a.transpose(perm), t.permute(*perm)
        elif op == "slice" and nd >= 1:
            d = draw(st.integers(0, nd - 1))
            step = draw(st.integers(1, 3))
            start = draw(st.integers(0, 1))
            index = [slice(None)] * nd
            index[d] = slice(start, None, step)
            a, t = a[tuple(index)], t[tuple(index)]
        elif op in ("expand", "unsqueeze"):
            d = draw(st.integers(0, nd))
            a, t = np.expand_dims(a, d), t.unsqueeze(d)
            if op == "expand":
                size = list(a.shape)
                size[d] = draw(st.integers(1, 4))
                a, t = np.broadcast_to(a, size), t.expand(*size)
    # PyTorch's size-1 dims keep strides from the view history (NumPy's differ) and the
    # order of a reduction can depend on them; gradshell assumes the stride an unsqueeze
    # would give (the next dim's stride times its size), so compare on that layout
    strides = list(t.stride())
    for d in range(t.dim() - 1, -1, -1):
        if t.shape[d] == 1:
            strides[d] = strides[d + 1] * t.shape[d + 1] if d + 1 < t.dim() else 1
    t = t.as_strided(t.shape, strides, t.storage_offset())
    nd = a.ndim
    if nd and draw(st.booleans()):
        dims = tuple(sorted(draw(st.sets(st.integers(0, nd - 1), min_size=1))))
    else:
        dims = None
    return a, t, dims


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=layouts(),
    keepdim=st.booleans(),
    fn=st.sampled_from(["sum", "mean"]),
    out_dtype=st.sampled_from([None, None, None, np.float32, np.float64, np.float16]),
    nthreads=st.sampled_from([1, 2]),
)
def test_dims_layouts_dtypes(case, keepdim, fn, out_dtype, nthreads):
    a, t, dims = case
    with threads(nthreads):
        check(a, t, dims, keepdim, out_dtype, fn)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_special_values(dtype):
    cases = [
        np.array(-0.0),
        np.full(7, -0.0),
        np.full((3, 40), -0.0),
        np.array([np.inf, -np.inf, 1.0]),
        np.array([np.nan, 1.0, 2.0]),
        np.full(1000, 60000.0),  # float16 overflows to inf
        np.array([1e-45, 1e-45, -0.0]),
        np.zeros((0, 5)),
        np.zeros((5, 0)),
    ]
    for a in cases:
        a = a.astype(dtype)
        t = torch.from_numpy(a)
        for dims in [None] + [(d,) for d in range(a.ndim)]:
            with np.errstate(all="ignore"):
                check(a, t, dims, False)
                check(a, t, dims, True, fn="mean")


def test_size_one_dims_with_any_numpy_stride():
    """x[:, None] gives the new dim stride 0 in NumPy; the result must not depend on it."""
    a = values(np.random.default_rng(0), 36, "mixed").astype(np.float32).reshape(4, 9)
    t = torch.from_numpy(a)
    view = a[:, None, ::2]
    assert view.strides[1] == 0
    check(view, t.unsqueeze(1)[:, :, ::2], (0, 2), False)


def test_other_array_modules_use_their_own_sum():
    """Device arrays (here the CuPy test double) go to their own module's sum and mean."""
    from support.fake_cupy import DeviceArray, fake_cupy

    from gradshell.core import backends
    from gradshell.core.device import Device

    backends.use_cuda_backend(fake_cupy, DeviceArray, lambda a: Device("cuda", 0))
    try:
        a = DeviceArray(np.arange(12, dtype=np.float32).reshape(3, 4))
        assert summation.torch_sum(a).get() == 66.0
        assert summation.torch_mean(a, (1,), True).get().tolist() == [[1.5], [5.5], [9.5]]
        assert summation.torch_sum(a, (0,), dtype=np.float64).get().dtype == np.float64
    finally:
        backends.reset_cuda_backend()


# -- through gradshell's tensors -------------------------------------------------------------
def test_tensor_methods_use_the_exact_sums():
    rng = np.random.default_rng(7)
    a = values(rng, 6 * 7 * 5, "mixed").astype(np.float32).reshape(6, 7, 5)
    g, t = gtorch.tensor(a), torch.tensor(a)
    pairs = [
        (g.sum(), t.sum()),
        (g.mean(), t.mean()),
        (g.sum(1), t.sum(1)),
        (g.mean((0, 2), keepdim=True), t.mean((0, 2), keepdim=True)),
        (g.transpose(0, 2).sum(-1), t.transpose(0, 2).sum(-1)),
        (g.sum(dtype=gtorch.float64), t.sum(dtype=torch.float64)),
        (g.half().mean(0), t.half().mean(0)),
        (g[:, ::2].sum_to_size(1, 4, 1), t[:, ::2].sum_to_size(1, 4, 1)),
    ]
    for ours, theirs in pairs:
        assert same_bits(ours._data, theirs.numpy())
        assert repr(ours) == repr(theirs)


def test_lesson_prints_match():
    """The fit-a-line lesson: b.grad is -2.0000 in PyTorch (its sum is -1.9999999), and the
    mean of linspace(-1, 1, 20) is 8.9407e-09 (x is PyTorch's linspace, taken as data)."""
    xs = torch.linspace(-1, 1, 20).tolist()

    def run(tm):
        x = tm.tensor(xs)
        y = 3 * x + 1
        w = tm.tensor(0.0, requires_grad=True)
        b = tm.tensor(0.0, requires_grad=True)
        loss = ((w * x + b - y) ** 2).mean()
        loss.backward()
        return [repr(v) for v in (x.mean(), y.sum(), loss, w.grad, b.grad)]

    ours, theirs = run(gtorch), run(torch)
    assert ours == theirs
    assert theirs[0] == "tensor(8.9407e-09)"
    assert theirs[-1] == "tensor(-2.0000)"


def test_mean_of_four_stays_cheap_and_right():
    """The seed program's mean of a 2x2 tensor goes through the scalar path."""
    x = gtorch.ones(2, 2, requires_grad=True)
    out = ((x + 2) * (x + 2) * 3).mean()
    assert repr(out) == "tensor(27., grad_fn=<MeanBackward0>)"


# -- the other reductions ----------------------------------------------------------------------
NORM_ORDERS = st.sampled_from([2.0, 2.0, 1.0, 3.0, 0.5, math.inf, -math.inf, 0.0])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=layouts(), keepdim=st.booleans(), p=NORM_ORDERS, nthreads=st.sampled_from([1, 2]))
def test_vector_norm(case, keepdim, p, nthreads):
    """linalg.vector_norm: the vectorised p=2 kernel over a contiguous last dim (with its
    FMAs), the scalar kernel's running sums elsewhere, libm's pow for other p."""
    a, t, dims = case
    # beyond this size other powers go to NumPy's (faster, not bit-exact) power
    assume(p in (0.0, 1.0, 2.0, math.inf, -math.inf) or a.size <= summation._LIBM_POW_MAX)
    try:
        expected = torch.linalg.vector_norm(t, p, dim=dims, keepdim=keepdim)
    except RuntimeError:  # inf norms of empty tensors have no identity
        return
    with threads(nthreads):
        ours = summation.torch_vector_norm(a, p, dims, keepdim)
    assert same_bits(ours, expected.numpy()), (p, a.shape, a.strides, dims, keepdim)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_two_norm_of_every_length(dtype):
    rng = np.random.default_rng(11)
    for n in list(range(1, 80)) + [255, 1000, 4099]:
        a = values(rng, n, "mixed").astype(dtype)
        expected = torch.linalg.vector_norm(torch.from_numpy(a)).numpy()
        assert same_bits(summation.torch_vector_norm(a), expected), n
        rows = values(rng, 3 * n, "normal").astype(dtype).reshape(3, n)
        expected = torch.from_numpy(rows).norm(dim=1).numpy()
        assert same_bits(summation.torch_vector_norm(rows, 2, (1,)), expected), n


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=layouts(),
    keepdim=st.booleans(),
    correction=st.sampled_from([1, 1, 0, 2, 0.5]),
    take_sqrt=st.booleans(),
    nthreads=st.sampled_from([1, 2]),
)
def test_var_std(case, keepdim, correction, take_sqrt, nthreads):
    """var/std: one output by PyTorch's two-pass double sum, others by Welford in double."""
    a, t, dims = case
    length = math.prod(a.shape[d] for d in (dims if dims is not None else range(a.ndim)))
    # Welford's loop has a length limit (beyond it, over several outputs, NumPy's two passes)
    assume(length <= summation._WELFORD_MAX or length == a.size)
    with threads(nthreads), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn = t.std if take_sqrt else t.var
        expected = fn(dim=dims, correction=correction, keepdim=keepdim)
        ours = summation.torch_var(a, dims, correction, keepdim, take_sqrt)
    assert same_bits(ours, expected.numpy()), (a.shape, a.strides, dims, keepdim, correction)


@pytest.mark.parametrize("nthreads", [1, 2, 3])
def test_var_of_large_tensors(nthreads):
    rng = np.random.default_rng(nthreads)
    a = (values(rng, 120_000, "normal") * 4 + 2).astype(np.float32)
    with threads(nthreads):
        for x in (a, a.reshape(40, 3000)[:, ::2], a.reshape(300, 400).T):
            t = torch.from_numpy(x)
            assert same_bits(summation.torch_var(x), t.var().numpy())
            assert same_bits(summation.torch_var(x, take_sqrt=True), t.std().numpy())
        h = a[:40000].astype(np.float16)  # float16: Welford, its pieces combined per thread
        assert same_bits(summation.torch_var(h), torch.from_numpy(h).var().numpy())
        m = a.reshape(12, 10_000)
        assert same_bits(summation.torch_var(m, (1,)), torch.from_numpy(m).var(1).numpy())


def test_tensor_methods_of_the_other_reductions():
    rng = np.random.default_rng(5)
    a = values(rng, 7 * 40, "mixed").astype(np.float32).reshape(7, 40)
    g, t = gtorch.tensor(a), torch.tensor(a)
    pairs = [
        (g.norm(), t.norm()),
        (g.norm(dim=0), t.norm(dim=0)),
        (g.norm(1, dim=1), t.norm(1, dim=1)),
        (gtorch.linalg.vector_norm(g.t(), 3), torch.linalg.vector_norm(t.t(), 3)),
        (g.var(), t.var()),
        (g.std(1), t.std(1)),
        (g.var(0, keepdim=True), t.var(0, keepdim=True)),
        (g.cumsum(1), t.cumsum(1)),
        (g.cumsum(0, dtype=gtorch.float64), t.cumsum(0, dtype=torch.float64)),
        (g.half().cumsum(1), t.half().cumsum(1)),
        ((g / 8 + 1).cumprod(1), (t / 8 + 1).cumprod(1)),
    ]
    for ours, theirs in pairs:
        assert same_bits(ours._data, theirs.numpy())
        assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("n", [0, 1, 2, 15, 16, 17, 33, 100, 257, 4097, 70_000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nll_loss_cascade(n, dtype):
    """nll_loss adds the picked log-probabilities in its own eight-level cascade (index 0
    straight to the top, ignored targets skipping their transfers); the total weight too."""
    import torch.nn.functional as F

    import gradshell.torch.nn.functional as GF

    rng = np.random.default_rng(n)
    logp = (rng.standard_normal((n, 5)) * 3).astype(dtype)
    target = rng.integers(0, 5, n)
    ignored = target.copy()
    ignored[::3] = -100
    ignored[16:33] = -100
    weight = rng.uniform(0.1, 2, 5).astype(dtype)
    for tg in (target, ignored):
        for w in (None, weight):
            for reduction in ("mean", "sum"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    expected = F.nll_loss(
                        torch.from_numpy(logp),
                        torch.from_numpy(tg),
                        weight=None if w is None else torch.from_numpy(w),
                        reduction=reduction,
                    )
                    ours = GF.nll_loss(
                        gtorch.tensor(logp),
                        gtorch.tensor(tg),
                        weight=None if w is None else gtorch.tensor(w),
                        reduction=reduction,
                    )
                assert same_bits(ours._data, expected.numpy()), (reduction, w is None)
    image = (rng.standard_normal((2, 4, 3, max(n, 1) % 300)) * 2).astype(dtype)
    labels = rng.integers(0, 4, (2, 3, image.shape[-1]))
    labels[0, 0, ::2] = -100
    expected = F.nll_loss(torch.from_numpy(image), torch.from_numpy(labels))
    ours = GF.nll_loss(gtorch.tensor(image), gtorch.tensor(labels))
    assert same_bits(ours._data, expected.numpy())


def test_loss_reductions():
    import torch.nn.functional as F

    import gradshell.torch.nn.functional as GF

    rng = np.random.default_rng(3)
    for shape in [(7,), (40, 3), (3, 1000)]:
        a = values(rng, int(np.prod(shape)), "normal").astype(np.float32).reshape(shape)
        b = values(rng, int(np.prod(shape)), "normal").astype(np.float32).reshape(shape)
        for name in ("mse_loss", "l1_loss", "smooth_l1_loss"):
            for reduction in ("mean", "sum"):
                expected = getattr(F, name)(torch.tensor(a), torch.tensor(b), reduction=reduction)
                ours = getattr(GF, name)(gtorch.tensor(a), gtorch.tensor(b), reduction=reduction)
                assert same_bits(ours._data, expected.numpy()), (name, reduction, shape)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=layouts(kinds=st.just("near_one")),
    keepdim=st.booleans(),
    nthreads=st.sampled_from([1, 2]),
    data=st.data(),
)
def test_prod(case, keepdim, nthreads, data):
    """prod: four vector accumulators over contiguous rows, lanes, then leftovers; items in
    order elsewhere (values near ±1 keep long products finite)."""
    a, t, _ = case
    dim = data.draw(st.one_of(st.none(), st.integers(0, max(a.ndim - 1, 0))))
    with threads(nthreads):
        expected = t.prod() if dim is None else t.prod(dim, keepdim=keepdim)
        ours = summation.torch_prod(a, None if dim is None else (dim,), keepdim and dim is not None)
    assert same_bits(ours, expected.numpy()), (a.shape, a.strides, dim, keepdim)


@pytest.mark.parametrize("nthreads", [1, 2, 3])
def test_long_products(nthreads):
    rng = np.random.default_rng(nthreads)
    a = values(rng, 100_003, "near_one").astype(np.float32)
    with threads(nthreads):
        for x, t in ((a, torch.from_numpy(a)), (a[::3], torch.from_numpy(a)[::3])):
            assert same_bits(summation.torch_prod(x), t.prod().numpy())
        m = a[:99_000].reshape(330, 300)
        for dim in (0, 1):
            expected = torch.from_numpy(m).prod(dim).numpy()
            assert same_bits(summation.torch_prod(m, (dim,)), expected)
