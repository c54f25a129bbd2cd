"""gradshell's random generator against PyTorch 2.13's CPU generator, bit for bit.

Three layers:

* recorded tests (always run): PyTorch's outputs for every case of
  ``data/random_cases.py`` were recorded by ``data/make_random_fixtures.py`` as digests in
  ``data/random_fixtures.json``; gradshell must reproduce every digest;
* differential tests (run when PyTorch is importable): the same cases over 100+ seeds, every
  size from 0 to 20 plus 31, 33, 1000 and 1001, 10^6-element draws, 300 random interleavings
  of calls, and the error messages, compared live and bitwise, state bytes included;
* unit tests of the state layout, seeding, errors, the exact FMA and libm emulations, the
  lookahead buffer and the kernel variants.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import random
import struct
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from gradshell.core import fma as _fma
from gradshell.core import random as grandom
from gradshell.core.random import Generator, _engine, _libm, _parallel, default_generator

DATA = Path(__file__).resolve().parent / "data"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, DATA / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


rc = _load("random_cases")
mf = _load("make_random_fixtures")
FIXTURES = json.loads((DATA / "random_fixtures.json").read_text())
CASE_NAMES = [c.name for c in rc.CASES]


@pytest.fixture(autouse=True)
def _quiet():
    # PyTorch (and gradshell, to match) warn about float ranges beyond 2^digits.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def _ours_sequence(case, seed: int) -> str:
    g = Generator(seed)
    return rc.run_sequence(case, seed, lambda n: case.ours(g, n), g.get_state)


# -- recorded fixtures (no PyTorch needed) -------------------------------------------------
def test_fixtures_cover_every_case():
    """The recorded file has a digest for every case and fixture seed."""
    expected = {f"{c.name}|{s}" for c in rc.CASES for s in rc.FIXTURE_SEEDS}
    assert expected <= set(FIXTURES["sequences"])
    assert FIXTURES["torch_version"].startswith("2.13")


@pytest.mark.parametrize("name", CASE_NAMES)
def test_recorded_sequences(name):
    """Outputs over the whole size sequence, and the final state, match PyTorch's digests."""
    case = rc.BY_NAME[name]
    for seed in rc.FIXTURE_SEEDS:
        assert _ours_sequence(case, seed) == FIXTURES["sequences"][f"{name}|{seed}"], seed


def test_recorded_big_draws():
    """10^6-element draws (fill paths, FMA, randperm's vectorised shuffle) match PyTorch."""
    ours = {
        "randn_f32": lambda g: g.randn((10**6,)),
        "normal_f64": lambda g: g.normal((10**6 + 3,), -2.0, 7.0, np.float64),
        "uniform_f64": lambda g: g.uniform((10**6,), 0.1, 0.7, np.float64),
        "randperm": lambda g: g.randperm(10**6),
    }
    assert set(ours) == set(FIXTURES["big"])
    for name, fn in ours.items():
        g = Generator(0)
        h = hashlib.sha256()
        rc.digest_update(h, fn(g))
        h.update(g.get_state())
        assert h.hexdigest()[:24] == FIXTURES["big"][name], name


def test_recorded_interleavings():
    """Random interleavings of calls (cached normals carried across calls) match PyTorch."""
    for i, expected in enumerate(FIXTURES["interleavings"]):
        seed = 31 * i + 5
        g = Generator(seed)
        got = mf.sequence_digest(
            seed, mf.interleaving(i), lambda case, n, g=g: case.ours(g, n), g.get_state
        )
        assert got == expected, i


@pytest.mark.parametrize("label", [e[0] for e in rc.ERROR_CASES])
def test_recorded_errors(label):
    """Bad arguments raise PyTorch's exception type and message."""
    _, _, ours = next(e for e in rc.ERROR_CASES if e[0] == label)
    kind, message = FIXTURES["errors"][label]
    with pytest.raises(Exception) as info:
        ours(Generator(0))
    assert (type(info.value).__name__, str(info.value)) == (kind, message)


def test_recorded_literals():
    """A few literal values, readable in the fixture file."""
    lit = FIXTURES["literals"]
    g = Generator(0)
    assert [float(v).hex() for v in g.rand((5,)).tolist()] == lit["rand_f32_5"]
    assert [float(v).hex() for v in g.randn((20,)).tolist()] == lit["randn_f32_20"]
    assert [float(v).hex() for v in g.randn((3,), np.float64).tolist()] == lit["randn_f64_3"]
    assert g.randint((10,), 0, 10).tolist() == lit["randint_10"]
    assert g.randperm(10).tolist() == lit["randperm_10"]
    assert hashlib.sha256(g.get_state()).hexdigest() == lit["state_sha256"]
    assert hashlib.sha256(Generator(0).get_state()).hexdigest() == lit["fresh_state_seed0_sha256"]
    assert Generator().initial_seed() == lit["generator_initial_seed"] == grandom.DEFAULT_SEED


@pytest.mark.parametrize("key", sorted(FIXTURES["default_capability"]))
def test_recorded_default_capability(key):
    """``set_capability("default")`` reproduces PyTorch under ``ATEN_CPU_CAPABILITY=default``."""
    name, seed = key.split("|")
    grandom.set_capability("default")
    try:
        got = _ours_sequence(rc.BY_NAME[name], int(seed))
    finally:
        grandom.set_capability("avx2")
    assert got == FIXTURES["default_capability"][key]


# -- differential tests against a live PyTorch -----------------------------------------------
@pytest.fixture(scope="module")
def torch():
    torch = pytest.importorskip("torch")
    if not torch.__version__.startswith("2.13"):
        pytest.skip(f"the oracle is torch 2.13, found {torch.__version__}")
    torch.set_num_threads(1)
    return torch


def _same(a, b) -> bool:
    a, b = rc.as_array(a), rc.as_array(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.slow  # hundreds of MB of draws: compared live (the fixtures above cover offline)
@pytest.mark.parametrize("name", CASE_NAMES)
def test_matches_torch(torch, name):
    """Every size of every case over 100+ seeds, bitwise, then the raw state bytes."""
    case = rc.BY_NAME[name]
    g = Generator()
    assert len(rc.DIFF_SEEDS) >= 100
    for seed in rc.DIFF_SEEDS:
        torch.manual_seed(seed)
        g.manual_seed(seed)
        for n in case.sizes:
            theirs, ours = case.theirs(torch, n), case.ours(g, n)
            assert _same(ours, theirs), (name, seed, n)
        assert g.get_state() == torch.get_rng_state().numpy().tobytes(), (name, seed)


@pytest.mark.slow  # big draws: compared live only
def test_big_draws_match_torch(torch):
    """One 10^6-element draw per kernel family, plus sizes around the 16-wide blocks."""
    cases = [
        (lambda t: t.randn(10**6 + 5), lambda g: g.randn((10**6 + 5,))),
        (lambda t: t.empty(10**6).normal_(1.5, 0.3), lambda g: g.normal((10**6,), 1.5, 0.3)),
        (lambda t: t.randn(10**6, dtype=t.float64), lambda g: g.randn((10**6,), np.float64)),
        (lambda t: t.empty(10**6).uniform_(0.1, 0.7), lambda g: g.uniform((10**6,), 0.1, 0.7)),
        (lambda t: t.randperm(10**6), lambda g: g.randperm(10**6)),
        (lambda t: t.randint(0, 2**40, (10**6,)), lambda g: g.randint((10**6,), 0, 2**40)),
    ]
    g = Generator()
    for seed, (theirs, ours) in enumerate(cases):
        torch.manual_seed(seed)
        g.manual_seed(seed)
        assert _same(ours(g), theirs(torch)), seed
        assert g.get_state() == torch.get_rng_state().numpy().tobytes(), seed


def test_interleavings_match_torch(torch):
    """300 random interleavings of calls on one generator, state compared after each."""
    g = Generator()
    for i in range(300):
        seed = 31 * i + 5
        torch.manual_seed(seed)
        g.manual_seed(seed)
        for name, n in mf.interleaving(i):
            case = rc.BY_NAME[name]
            assert _same(case.ours(g, n), case.theirs(torch, n)), (i, name, n)
        assert g.get_state() == torch.get_rng_state().numpy().tobytes(), i


def test_errors_match_torch(torch):
    """Each bad call raises the same exception type and message as PyTorch."""
    for label, theirs, ours in rc.ERROR_CASES:
        with pytest.raises(Exception) as expected:
            theirs(torch)
        with pytest.raises(Exception) as got:
            ours(Generator(0))
        assert type(got.value).__name__ == type(expected.value).__name__, label
        assert str(got.value) == str(expected.value).split("\n")[0], label


def test_failed_draws_consume_like_torch(torch):
    """PyTorch checks bernoulli's p and multinomial's rows while drawing; so do we."""
    g = Generator()
    for seed in range(10):
        torch.manual_seed(seed)
        g.manual_seed(seed)
        with pytest.raises(RuntimeError):
            torch.bernoulli(torch.tensor([0.5, 0.5, 1.5, 0.5]))
        with pytest.raises(RuntimeError):
            g.bernoulli(np.array([0.5, 0.5, 1.5, 0.5], np.float32))
        with pytest.raises(RuntimeError):
            torch.multinomial(torch.tensor([[0.1, 0.2], [0.0, 0.0]]), 2, True)
        with pytest.raises(RuntimeError):
            g.multinomial(np.array([[0.1, 0.2], [0.0, 0.0]], np.float32), 2, True)
        assert g.get_state() == torch.get_rng_state().numpy().tobytes()


def test_state_interop_with_torch(torch):
    """States travel both ways: torch bytes load into ours and ours into torch."""
    g = Generator()
    for seed in (0, 5, 2**40):
        torch.manual_seed(seed)
        torch.randn(3)  # leaves a cached normal sample in the state
        torch.randint(0, 10, (7,))
        g.set_state(torch.get_rng_state().numpy().tobytes())
        assert g.get_state() == torch.get_rng_state().numpy().tobytes()
        assert _same(g.randn((5,)), torch.randn(5))
        torch.set_rng_state(torch.frombuffer(bytearray(g.get_state()), dtype=torch.uint8))
        assert _same(g.rand((40,)), torch.rand(40))
    gen = torch.Generator().manual_seed(7)
    ours = Generator(7)
    assert _same(ours.randn((33,)), torch.randn(33, generator=gen))
    assert ours.get_state() == gen.get_state().numpy().tobytes()


def test_odd_loaded_states_match_torch(torch):
    """States whose left/next pair is not the usual one (PyTorch accepts them) stay exact."""
    torch.manual_seed(7)
    base = bytearray(torch.get_rng_state().numpy().tobytes())
    g = Generator()
    for left, next_ in [
        (1, 0),
        (1, 624),
        (624, 1),
        (10, 0),
        (10, 600),
        (600, 24),
        (2, 0),
        (1, 300),
    ]:
        state = bytearray(base)
        struct.pack_into("<iiQ", state, 8, left, 1, next_)
        torch.set_rng_state(torch.frombuffer(state, dtype=torch.uint8))
        g.set_state(bytes(state))
        for k in (1, 3, 700, 5):
            assert _same(g.randint((k,), 0, 2**31), torch.randint(0, 2**31, (k,)))
            assert g.get_state() == torch.get_rng_state().numpy().tobytes()


# -- unit tests ------------------------------------------------------------------------------
def test_mt19937_reference_vector():
    """init_genrand(5489) gives the reference MT19937 outputs (Matsumoto & Nishimura)."""
    g = Generator(5489)
    assert g.random_((3,), np.int64, from_=0, to=2**31).tolist() != []  # consumes u64s
    g.manual_seed(5489)
    words = g._engine.raw(3).tolist()
    assert words == [3499211612, 581869302, 3890346734]


def test_state_layout():
    """The 5,056-byte layout: seed, left, seeded, next, 624 words, normal cache, float cache."""
    g = Generator(2**40 + 3)
    state = g.get_state()
    assert len(state) == grandom.STATE_SIZE == 5056
    seed, left, seeded, next_ = struct.unpack_from("<QiiQ", state, 0)
    assert (seed, left, seeded, next_) == (2**40 + 3, 1, 1, 0)
    words = np.frombuffer(state, "<u8", 624, 24)
    assert words[0] == 3 and int(words.max()) < 2**32  # the low 32 bits seed MT19937
    x, y, rho, valid = struct.unpack_from("<dddi", state, 24 + 8 * 624)
    assert (x, y, rho, valid) == (0.0, 0.0, 0.0, 0)
    g.randn((3,))  # serial path: caches one sample
    seed, left, seeded, next_ = struct.unpack_from("<QiiQ", g.get_state(), 0)
    assert (left, next_) == (617, 8)  # two Box-Muller pairs, two random64() each
    x, y, rho, valid = struct.unpack_from("<dddi", g.get_state(), 24 + 8 * 624)
    assert valid == 1 and x == rho == 0.0 and y != 0.0
    assert g.get_state()[5044:5048] == b"\0" * 4 and g.get_state()[5048:] == b"\0" * 8


def test_state_round_trip_and_caches():
    """set_state restores the stream, the cached normal and the float cache bytes."""
    g = Generator(11)
    g.randn((5,))
    g.rand((1000,))
    saved = g.get_state()
    a = g.randn((3,))
    g2 = Generator().set_state(saved)
    assert g2.get_state() == saved
    np.testing.assert_array_equal(g2.randn((3,)), a)
    raw = bytearray(saved)
    struct.pack_into("<f?", raw, 5048, 1.5, True)
    assert Generator().set_state(bytes(raw)).get_state()[5048:5053] == raw[5048:5053]
    struct.pack_into("<di", raw, 24 + 8 * 624 + 8, 0.25, 2)  # any non-zero flag is valid
    assert Generator().set_state(bytes(raw)).randn((1,), np.float64)[0] == 0.25
    assert Generator().set_state(np.frombuffer(saved, np.uint8)).get_state() == saved


def test_seeding_wraps_like_torch():
    """64-bit seeds: negatives wrap, only the low 32 bits reach MT19937, the rest is kept."""
    assert Generator(-1).initial_seed() == 2**64 - 1
    assert Generator(-1).get_state() == Generator(2**64 - 1).get_state()
    a, b = Generator(5), Generator(2**32 + 5)
    np.testing.assert_array_equal(a.randn((40,)), b.randn((40,)))
    assert a.initial_seed() == 5 and b.initial_seed() == 2**32 + 5
    assert a.get_state()[8:] == b.get_state()[8:]
    np.testing.assert_array_equal(Generator(2**63 - 1).rand((9,)), Generator(2**32 - 1).rand((9,)))
    assert Generator(-(2**63)).initial_seed() == 2**63
    assert Generator(np.int64(9)).initial_seed() == 9


@pytest.mark.parametrize(
    "seed, kind, message",
    [
        (2**64, ValueError, "Overflow when unpacking long long"),
        (-(2**63) - 1, ValueError, "Overflow when unpacking long long"),
        (1.5, RuntimeError, "manual_seed expected a long, but got float"),
        (True, RuntimeError, "manual_seed expected a long, but got bool"),
        ("3", RuntimeError, "manual_seed expected a long, but got str"),
    ],
)
def test_bad_seeds(seed, kind, message):
    """manual_seed rejects what PyTorch's Generator.manual_seed rejects, with its message."""
    with pytest.raises(kind) as info:
        Generator().manual_seed(seed)
    assert str(info.value) == message


def test_nondeterministic_seed_and_default_generator():
    """seed() picks a fresh 64-bit seed and reports it; default_generator exists, seeded so."""
    g = Generator()
    s = g.seed()
    assert 0 <= s < 2**64 and g.initial_seed() == s
    assert g.get_state() == Generator(s).get_state()
    assert Generator().seed() != Generator().seed()  # 2^-64 chance of a false failure
    assert isinstance(default_generator, Generator)
    assert default_generator.initial_seed() != grandom.DEFAULT_SEED


@pytest.mark.parametrize("size", [0, 10, 5048, 5055, 5057])
def test_wrong_state_size(size):
    """PyTorch's message for a state of the wrong size."""
    with pytest.raises(RuntimeError) as info:
        Generator().set_state(b"\0" * size)
    assert str(info.value) == (
        "Expected a CPUGeneratorImplState of size 5056 but found the input RNG state size "
        f"to be {size}"
    )


@pytest.mark.parametrize(
    "left, seeded, next_",
    [(0, 1, 0), (625, 1, 0), (-1, 1, 0), (1, 1, 625), (1, 0, 0), (1, 2, 0)],
)
def test_invalid_mt_states(left, seeded, next_):
    """States PyTorch rejects as 'Invalid mt19937 state' are rejected too."""
    raw = bytearray(Generator(3).get_state())
    struct.pack_into("<iiQ", raw, 8, left, seeded, next_)
    with pytest.raises(RuntimeError, match="^Invalid mt19937 state$"):
        Generator().set_state(bytes(raw))


def test_states_reading_past_the_words_are_refused():
    """left/next pairs that would make PyTorch read past its 624 words (undefined there)."""
    raw = bytearray(Generator(3).get_state())
    struct.pack_into("<iiQ", raw, 8, 10, 1, 620)
    with pytest.raises(RuntimeError, match="would read past"):
        Generator().set_state(bytes(raw))


def test_lookahead_keeps_state_exact():
    """Words buffered ahead (for small float32 normals) never show in the state bytes."""
    rng = random.Random(5)
    for trial in range(60):
        plain, buffered = Generator(trial), Generator(trial)
        for _ in range(rng.randint(1, 6)):
            if rng.random() < 0.5:
                buffered._engine.lookahead(
                    rng.choice([1, 50, 700, 3000]), chunk=rng.choice([16, 2048])
                )
            k = rng.choice([0, 1, 5, 623, 624, 625, 1000, 5000])
            op = rng.choice(["raw", "u32", "u64"])
            np.testing.assert_array_equal(
                getattr(plain._engine, op)(k), getattr(buffered._engine, op)(k)
            )
            assert plain.get_state() == buffered.get_state()


def test_untemper_inverts_temper():
    """untemper is the inverse of MT19937's output tempering."""
    w = np.random.RandomState(0).randint(0, 2**32, 5000, dtype=np.uint64).astype(np.uint32)
    np.testing.assert_array_equal(_engine.untemper(_engine.temper(w)), w)


def _exact_fma(a: float, b: float, c: float) -> Fraction:
    return Fraction(a) * Fraction(b) + Fraction(c)


def test_fma64_exact():
    """The float64 FMA emulations equal exact rational arithmetic rounded once."""
    rs = np.random.RandomState(3)
    a = np.concatenate(
        [rs.rand(3000), rs.randn(3000) * 1e3, np.round(rs.rand(2000) * 2**20) / 2**20]
    )
    for b, c in [(0.6, 0.1), (2.0, 0.5), (1e3 + 1e-3, -1e-3), (-0.3, 0.0), (7.0, -2.0)]:
        got = _fma.fma64_scalars(a, b, c)
        want = np.array([float(_exact_fma(x, b, c)) for x in a.tolist()])
        np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))
        assert all(
            _fma.fma64_fast(x, b, c) == w
            for x, w in zip(a[:500].tolist(), want[:500].tolist(), strict=True)
        )
    x = rs.randn(4000)
    y = rs.randn(4000)
    z = -x * y * (1 + rs.randn(4000) * 1e-15)  # heavy cancellation
    want = np.array(
        [float(_exact_fma(*t)) for t in zip(x.tolist(), y.tolist(), z.tolist(), strict=True)]
    )
    np.testing.assert_array_equal(_fma.fma64(x, y, z), want)
    assert math.copysign(1.0, _fma.fma64_fast(-0.0, 2.0, -0.0)) == -1.0
    assert math.copysign(1.0, _fma.fma64_scalars(np.array([-0.0] * 40), 2.0, -0.0)[0]) == -1.0


def test_fma32_exact_including_midpoints():
    """The float32 FMA (float64 sum plus a midpoint repair) is correctly rounded."""
    rs = np.random.RandomState(4)
    a = (np.round(rs.rand(5000) * 2**12) / 2**12).astype(np.float32)
    b = (np.round(rs.rand(5000) * 2**12) / 2**12).astype(np.float32)
    c = (np.round(rs.rand(5000) * 2**5) / 2**30).astype(np.float32)
    got = _fma.fma32(a, b, c)
    want = [
        _fma.fma32_scalar(float(x), float(y), float(z)) for x, y, z in zip(a, b, c, strict=True)
    ]
    np.testing.assert_array_equal(got, np.array(want, dtype=np.float32))
    # 1 + 2^-22 + 2^-46 + 2^-24: the float64 sum would tie; the exact value rounds up
    one = np.float32(1 + 2**-23)
    assert _fma.fma32(one, one, np.float32(2**-24))[()] == np.float32(1 + 3 * 2**-23)
    assert np.array_equal(
        _fma.fma32_scalars(a, np.float32(0.37), np.float32(-0.2)),
        _fma.fma32(a, np.float32(0.37), np.float32(-0.2)),
    )


def test_libm_log_is_the_c_library_log():
    """The vectorised log equals math.log (the C library's) bit for bit."""
    rs = np.random.RandomState(5)
    x = np.concatenate(
        [
            1.0 - rs.randint(0, 2**53, 50000).astype(np.float64) * 2.0**-53,
            np.exp(rs.uniform(-700, 700, 5000)),
            [1.0, 2.0**-53, 0.5],
        ]
    )
    np.testing.assert_array_equal(_libm.log(x), np.array([math.log(v) for v in x.tolist()]))
    t = rs.rand(2000) * 2 * math.pi
    np.testing.assert_array_equal(_libm.sin(t), np.array([math.sin(v) for v in t.tolist()]))
    np.testing.assert_array_equal(_libm.cos(t), np.array([math.cos(v) for v in t.tolist()]))


def test_threads_do_not_change_results():
    """Chunks computed on worker threads give the same bits as on one thread."""
    before = _parallel.get_threads()
    try:
        _parallel.set_threads(1)
        one = [
            Generator(3).randn((300_000,)),
            Generator(3).normal((200_000,), 1.0, 2.0, np.float64),
        ]
        _parallel.set_threads(3)
        three = [
            Generator(3).randn((300_000,)),
            Generator(3).normal((200_000,), 1.0, 2.0, np.float64),
        ]
    finally:
        _parallel.set_threads(before)
    for a, b in zip(one, three, strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError):
        _parallel.set_threads(0)


def test_capability_setting():
    """set_capability accepts the two variants only; the variants differ where PyTorch's do."""
    assert grandom.get_capability() == "avx2"
    with pytest.raises(ValueError):
        grandom.set_capability("neon")
    grandom.set_capability("default")
    try:
        unfused = Generator(1).uniform((2000,), 0.1, 0.7)
    finally:
        grandom.set_capability("avx2")
    fused = Generator(1).uniform((2000,), 0.1, 0.7)
    assert not np.array_equal(unfused, fused)  # an FMA changes some last bits
    assert np.abs(unfused - fused).max() <= np.spacing(np.float32(0.7))


def test_shapes_dtypes_and_memory_order():
    """Samplers return C-contiguous arrays of the requested shape and dtype."""
    g = Generator(0)
    for fn in (
        lambda: g.rand((2, 3)),
        lambda: g.randn((4, 4)),
        lambda: g.randint((3, 1, 2), 0, 5, np.int16),
    ):
        out = fn()
        assert out.flags.c_contiguous and out.ndim in (2, 3)
    assert g.randn((2, 3), np.float64).dtype == np.float64
    assert g.bernoulli(np.full((2, 2), 0.5, np.float16)).dtype == np.float16
    # (4, 4) has 16 elements: the fill path, exactly as for (16,)
    np.testing.assert_array_equal(Generator(1).randn((4, 4)).ravel(), Generator(1).randn((16,)))
    with pytest.raises(NotImplementedError):
        g.randn((3,), np.int64)


def test_normal_cache_survives_between_calls():
    """An odd-sized serial draw caches its last sine sample for the next serial draw."""
    g, h = Generator(4), Generator(4)
    a = np.concatenate([g.randn((3,), np.float64), g.randn((1,), np.float64)])
    b = h.randn((4,), np.float64)
    np.testing.assert_array_equal(a, b)
    assert g.get_state() == h.get_state()
    g.randn((16,))  # the fill path neither reads nor clears the cache
    assert (
        g.get_state()[24 + 8 * 624 : 24 + 8 * 624 + 28]
        == h.get_state()[24 + 8 * 624 : 24 + 8 * 624 + 28]
    )
