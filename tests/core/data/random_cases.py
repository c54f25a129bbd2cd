"""Shared case definitions for gradshell's random-generator tests and their recorded fixtures.

Each case pairs a PyTorch call with the ``gradshell.core.random.Generator`` call that must
reproduce it bit for bit.  Both sides are called right after seeding with the same seed;
inputs that are tensors (probabilities, means, ...) come from a fixed NumPy ``RandomState``
so that building them never touches either generator.  The PyTorch side receives the
``torch`` module as an argument, so this file imports without PyTorch installed.

``make_random_fixtures.py`` records PyTorch's answers from these cases; ``test_random.py``
replays them against gradshell with and without PyTorch.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

SIZES = [*range(21), 31, 33, 1000, 1001]
FIXTURE_SEEDS = [0, 1, 7, 42, 2**31 - 1, 2**32 + 5, -1, 2**63 - 1, 123456789, 67280421310721]
# Differential seeds: small ones, the 32-bit and 64-bit edges (negative values wrap), and a
# spread of arbitrary 64-bit values.
DIFF_SEEDS = sorted(
    {*range(60), 2**31 - 1, 2**32 - 1, 2**32, 2**32 + 5, 2**63 - 1, -1, -(2**63), 2**64 - 1}
    | {int(s) for s in np.random.RandomState(2024).randint(0, 2**62, size=40, dtype=np.int64)}
)

F16, F32, F64 = np.float16, np.float32, np.float64
FLOATS = {"f16": F16, "f32": F32, "f64": F64}


@dataclass(frozen=True)
class Case:
    """One torch function and its gradshell counterpart, for a size ``n``."""

    name: str
    theirs: Callable  # (torch, n) -> tensor
    ours: Callable  # (generator, n) -> ndarray
    sizes: tuple[int, ...] = tuple(SIZES)


def tdt(torch, np_dtype):
    """The torch dtype for a NumPy dtype."""
    return {
        np.dtype(np.bool_): torch.bool,
        np.dtype(np.uint8): torch.uint8,
        np.dtype(np.int8): torch.int8,
        np.dtype(np.int16): torch.int16,
        np.dtype(np.uint16): torch.uint16,
        np.dtype(np.int32): torch.int32,
        np.dtype(np.int64): torch.int64,
        np.dtype(np.float16): torch.float16,
        np.dtype(np.float32): torch.float32,
        np.dtype(np.float64): torch.float64,
    }[np.dtype(np_dtype)]


@lru_cache(maxsize=4096)
def data(n: int, dtype, tag: int, low: float = 0.0, high: float = 1.0, shape=None) -> np.ndarray:
    """Deterministic, read-only input data (never drawn from the generators under test)."""
    rs = np.random.RandomState(1000 * tag + n)
    out = rs.uniform(low, high, size=shape if shape is not None else (n,)).astype(dtype)
    out.flags.writeable = False
    return out


def _float_cases() -> list[Case]:
    cases: list[Case] = []
    for tag, dt in FLOATS.items():
        cases += [
            Case(
                f"rand_{tag}",
                lambda t, n, dt=dt: t.rand(n, dtype=tdt(t, dt)),
                lambda g, n, dt=dt: g.rand((n,), dt),
            ),
            Case(
                f"uniform_{tag}",
                lambda t, n, dt=dt: t.empty(n, dtype=tdt(t, dt)).uniform_(-0.3, 0.7),
                lambda g, n, dt=dt: g.uniform((n,), -0.3, 0.7, dt),
            ),
            Case(
                f"uniform_wide_{tag}",
                lambda t, n, dt=dt: t.empty(n, dtype=tdt(t, dt)).uniform_(-1e-3, 1e3),
                lambda g, n, dt=dt: g.uniform((n,), -1e-3, 1e3, dt),
            ),
            Case(
                f"randn_{tag}",
                lambda t, n, dt=dt: t.randn(n, dtype=tdt(t, dt)),
                lambda g, n, dt=dt: g.randn((n,), dt),
            ),
            Case(
                f"normal_{tag}",
                lambda t, n, dt=dt: t.empty(n, dtype=tdt(t, dt)).normal_(1.5, 0.3),
                lambda g, n, dt=dt: g.normal((n,), 1.5, 0.3, dt),
            ),
            Case(
                f"normal_size_{tag}",
                lambda t, n, dt=dt: t.normal(-2.0, 7.0, size=(n,), dtype=tdt(t, dt)),
                lambda g, n, dt=dt: g.normal((n,), -2.0, 7.0, dt),
            ),
            Case(
                # a transposed (n, 2) view: memory order is that of the (2, n) base, and for
                # n >= 2 the tensor is not contiguous, which selects the serial algorithm
                f"normal_noncontig_{tag}",
                lambda t, n, dt=dt: t.empty(2, n, dtype=tdt(t, dt)).t().normal_(0.5, 2.0).t(),
                lambda g, n, dt=dt: g.normal((2 * n,), 0.5, 2.0, dt, contiguous=n <= 1).reshape(
                    2, n
                ),
            ),
            Case(
                f"normal_TT_{tag}",
                lambda t, n, dt=dt: t.normal(
                    t.from_numpy(data(n, dt, 1, -1, 1)), t.from_numpy(data(n, dt, 2))
                ),
                lambda g, n, dt=dt: g.normal_tensor(data(n, dt, 1, -1, 1), data(n, dt, 2)),
            ),
            Case(
                f"normal_Tf_{tag}",
                lambda t, n, dt=dt: t.normal(t.from_numpy(data(n, dt, 3, -1, 1)), 0.6),
                lambda g, n, dt=dt: g.normal_tensor(data(n, dt, 3, -1, 1), 0.6),
            ),
            Case(
                f"normal_fT_{tag}",
                lambda t, n, dt=dt: t.normal(0.4, t.from_numpy(data(n, dt, 4))),
                lambda g, n, dt=dt: g.normal_tensor(0.4, data(n, dt, 4)),
            ),
            Case(
                f"exponential_{tag}",
                lambda t, n, dt=dt: t.empty(n, dtype=tdt(t, dt)).exponential_(0.7),
                lambda g, n, dt=dt: g.exponential((n,), 0.7, dt),
            ),
            Case(
                f"bernoulli_p_{tag}",
                lambda t, n, dt=dt: t.bernoulli(t.from_numpy(data(n, dt, 5))),
                lambda g, n, dt=dt: g.bernoulli(data(n, dt, 5)),
            ),
            Case(
                f"bernoulli_scalar_{tag}",
                lambda t, n, dt=dt: t.empty(n, dtype=tdt(t, dt)).bernoulli_(0.3),
                lambda g, n, dt=dt: g.bernoulli_((n,), 0.3, dt),
            ),
            Case(
                f"dropout_{tag}",
                lambda t, n, dt=dt: t.nn.functional.dropout(
                    t.from_numpy(data(n, dt, 6, -2, 2)), 0.3, True
                ),
                lambda g, n, dt=dt: data(n, dt, 6, -2, 2) * g.dropout_mask((n,), 0.3, dt),
            ),
        ]
    return cases


def _init_cases() -> list[Case]:
    # nn.init computes its bounds in Python floats, then calls uniform_/normal_.
    def kaiming(n: int) -> float:
        fan_in = 7
        gain = math.sqrt(2.0 / (1 + 5))  # leaky_relu with a = sqrt(5), as nn.Linear uses
        return math.sqrt(3.0) * gain / math.sqrt(fan_in)

    def xavier(n: int) -> float:
        return 1.0 * math.sqrt(2.0 / (7 + n)) * math.sqrt(3.0)

    return [
        Case(
            "kaiming_uniform",
            lambda t, n: t.nn.init.kaiming_uniform_(t.empty(n, 7), a=math.sqrt(5)),
            lambda g, n: g.uniform((n, 7), -kaiming(n), kaiming(n)),
        ),
        Case(
            "xavier_uniform",
            lambda t, n: t.nn.init.xavier_uniform_(t.empty(n, 7)),
            lambda g, n: g.uniform((n, 7), -xavier(n), xavier(n)),
            sizes=tuple(s for s in SIZES if s),
        ),
        Case(
            "init_normal",
            lambda t, n: t.nn.init.normal_(t.empty(n, 3), 0.2, 0.05),
            lambda g, n: g.normal((n, 3), 0.2, 0.05),
        ),
        Case(
            "bernoulli_tensor_self_f32_p_f64",
            lambda t, n: t.empty(n).bernoulli_(t.from_numpy(data(n, F64, 7))),
            lambda g, n: g.bernoulli_((n,), data(n, F64, 7), F32),
        ),
        Case(
            "bernoulli_tensor_self_i64_p_f32",
            lambda t, n: t.empty(n, dtype=t.int64).bernoulli_(t.from_numpy(data(n, F32, 8))),
            lambda g, n: g.bernoulli_((n,), data(n, F32, 8), np.int64),
        ),
    ]


_RANGES = [(0, 10), (-5, 100), (0, 2**28 - 1), (0, 2**28), (-(2**40), 2**40), (3, 2**31)]


def _int_cases() -> list[Case]:
    cases = []
    specs = [(np.int64, r) for r in _RANGES]
    specs += [(np.int32, r) for r in _RANGES[:4]] + [(np.int32, (-(2**31), 2**31 - 1))]
    specs += [
        (np.int16, (-300, 300)),
        (np.uint8, (0, 256)),
        (np.int8, (-128, 128)),
        (np.bool_, (0, 2)),
    ]
    specs += [(np.float32, r) for r in _RANGES] + [(np.float64, r) for r in _RANGES]
    specs += [(np.float16, (0, 2000)), (np.float16, (-2048, 2049)), (np.uint16, (5, 2**16 - 1))]
    for dt, (lo, hi) in specs:
        name = f"randint_{np.dtype(dt).name}_{lo}_{hi}"
        cases.append(
            Case(
                name,
                lambda t, n, dt=dt, lo=lo, hi=hi: t.randint(lo, hi, (n,), dtype=tdt(t, dt)),
                lambda g, n, dt=dt, lo=lo, hi=hi: g.randint((n,), lo, hi, dt),
            )
        )
    for dt in (np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, F16, F32, F64):
        cases.append(
            Case(
                f"random_{np.dtype(dt).name}",
                lambda t, n, dt=dt: t.empty(n, dtype=tdt(t, dt)).random_(),
                lambda g, n, dt=dt: g.random_((n,), dt),
            )
        )
    for dt, frm in (
        (np.int64, -(2**63)),
        (F64, -(2**63)),
        (F32, -(2**63)),
        (F32, 5),
        (np.int8, -3),
        (F16, -3000),
        (np.int64, 7),
    ):
        cases.append(
            Case(
                f"random_from_{np.dtype(dt).name}_{frm}",
                lambda t, n, dt=dt, frm=frm: t.empty(n, dtype=tdt(t, dt)).random_(frm, None),
                lambda g, n, dt=dt, frm=frm: g.random_((n,), dt, from_=frm),
            )
        )
    cases += [
        Case(
            "random_to_i64",
            lambda t, n: t.empty(n, dtype=t.int64).random_(5),
            lambda g, n: g.random_((n,), np.int64, to=5),
        ),
        Case(
            "random_from_to_f32",
            lambda t, n: t.empty(n).random_(-5, 2**25),
            lambda g, n: g.random_((n,), F32, from_=-5, to=2**25),
        ),
    ]
    for dt, limit in (
        (np.int64, None),
        (np.int32, None),
        (F32, None),
        (F64, None),
        (F16, 2049),
        (np.uint8, 256),
        (np.int8, 128),
    ):
        sizes = tuple(s for s in SIZES if limit is None or s <= limit)
        cases.append(
            Case(
                f"randperm_{np.dtype(dt).name}",
                lambda t, n, dt=dt: t.randperm(n, dtype=tdt(t, dt)),
                lambda g, n, dt=dt: g.randperm(n, dt),
                sizes=sizes,
            )
        )
    return cases


@lru_cache(maxsize=1024)
def _probs(n: int, dt, tag: int) -> np.ndarray:
    p = data(n, dt, tag, shape=(2, n)).copy()
    p[:, 0] += dt(0.01)  # every row has some mass
    p.flags.writeable = False
    return p


@lru_cache(maxsize=1024)
def _sparse_probs(n: int, dt, keep: float) -> np.ndarray:
    # mostly zeros, so sampling more than the non-zeros exercises topk's tie order
    p = data(n, dt, 11, shape=(n,)).copy()
    p[np.random.RandomState(n).rand(n) >= keep] = 0
    p[0] = dt(0.5)
    p.flags.writeable = False
    return p


def _multinomial_cases() -> list[Case]:
    sizes = tuple(s for s in SIZES if s)
    cases = []
    for tag, dt in FLOATS.items():
        cases += [
            Case(
                f"multinomial_repl_{tag}",
                lambda t, n, dt=dt: t.multinomial(t.from_numpy(_probs(n, dt, 9)), 5, True),
                lambda g, n, dt=dt: g.multinomial(_probs(n, dt, 9), 5, True),
                sizes,
            ),
            Case(
                f"multinomial_{tag}",
                lambda t, n, dt=dt: t.multinomial(t.from_numpy(_probs(n, dt, 10)), min(n, 3)),
                lambda g, n, dt=dt: g.multinomial(_probs(n, dt, 10), min(n, 3)),
                sizes,
            ),
        ]
    cases += [
        Case(
            "multinomial_one",
            lambda t, n: t.multinomial(t.from_numpy(_probs(n, F32, 12)), 1, True),
            lambda g, n: g.multinomial(_probs(n, F32, 12), 1, True),
            sizes,
        ),
        Case(
            # std::nth_element + std::sort order for the tied zeros
            "multinomial_ties",
            lambda t, n: t.multinomial(t.from_numpy(_sparse_probs(n, F32, 0.3)), max(1, n - 1)),
            lambda g, n: g.multinomial(_sparse_probs(n, F32, 0.3), max(1, n - 1)),
            tuple(s for s in sizes if s <= 100),
        ),
        Case(
            # std::partial_sort (k * 64 <= n) order for the tied zeros
            "multinomial_ties_partial",
            lambda t, n: t.multinomial(t.from_numpy(_sparse_probs(n, F32, 0.004)), max(1, n // 64)),
            lambda g, n: g.multinomial(_sparse_probs(n, F32, 0.004), max(1, n // 64)),
            sizes,
        ),
    ]
    return cases


CASES: list[Case] = _float_cases() + _init_cases() + _int_cases() + _multinomial_cases()
BY_NAME = {c.name: c for c in CASES}
assert len(BY_NAME) == len(CASES)


def as_array(x) -> np.ndarray:
    """A torch tensor (or array) as a C-contiguous NumPy array."""
    if hasattr(x, "detach"):
        x = x.detach().contiguous().numpy()
    return np.ascontiguousarray(x)


def digest_update(h, arr: np.ndarray) -> None:
    """Feed an output's dtype, shape and bytes into a hash."""
    h.update(f"{arr.dtype.str}{arr.shape}".encode())
    h.update(arr.tobytes())


def run_sequence(
    case: Case, seed: int, call: Callable[[int], object], state: Callable[[], bytes]
) -> str:
    """Digest of ``call(n)`` for every size of the case in order, then of the final state.

    The caller has seeded its generator with ``seed``; sizes run back to back without
    reseeding, so cached normal samples and stream positions carry over between calls.
    """
    h = hashlib.sha256(f"{case.name}|{seed}".encode())
    for n in case.sizes:
        digest_update(h, as_array(call(n)))
    h.update(state())
    return h.hexdigest()[:24]


# Bad calls and the exact PyTorch error they must raise: (label, torch call, ours call).
ERROR_CASES: list[tuple[str, Callable, Callable]] = [
    ("randint_empty", lambda t: t.randint(5, 5, (3,)), lambda g: g.randint((3,), 5, 5)),
    (
        "randint_bool_to",
        lambda t: t.randint(0, 3, (3,), dtype=t.bool),
        lambda g: g.randint((3,), 0, 3, np.bool_),
    ),
    (
        "randint_uint8_to",
        lambda t: t.randint(0, 300, (3,), dtype=t.uint8),
        lambda g: g.randint((3,), 0, 300, np.uint8),
    ),
    (
        "randint_int8_from",
        lambda t: t.randint(-129, 3, (3,), dtype=t.int8),
        lambda g: g.randint((3,), -129, 3, np.int8),
    ),
    (
        "randint_int32_to",
        lambda t: t.randint(0, 2**31 + 1, (3,), dtype=t.int32),
        lambda g: g.randint((3,), 0, 2**31 + 1, np.int32),
    ),
    (
        "randint_half_to",
        lambda t: t.randint(0, 70000, (3,), dtype=t.float16),
        lambda g: g.randint((3,), 0, 70000, F16),
    ),
    (
        "randint_u64_from",
        lambda t: t.randint(-1, 5, (3,), dtype=t.uint64),
        lambda g: g.randint((3,), -1, 5, np.uint64),
    ),
    ("random_to_zero", lambda t: t.empty(3).random_(0), lambda g: g.random_((3,), F32, to=0)),
    (
        "random_bool_to",
        lambda t: t.empty(3, dtype=t.bool).random_(3),
        lambda g: g.random_((3,), np.bool_, to=3),
    ),
    (
        "random_from_half",
        lambda t: t.empty(3, dtype=t.float16).random_(3000, None),
        lambda g: g.random_((3,), F16, from_=3000),
    ),
    (
        "random_from_f32_top",
        lambda t: t.empty(3).random_(2**24, None),
        lambda g: g.random_((3,), F32, from_=2**24),
    ),
    (
        "random_from_int8",
        lambda t: t.empty(3, dtype=t.int8).random_(200, None),
        lambda g: g.random_((3,), np.int8, from_=200),
    ),
    (
        "random_full_int32",
        lambda t: t.empty(3, dtype=t.int32).random_(-(2**63), None),
        lambda g: g.random_((3,), np.int32, from_=-(2**63)),
    ),
    (
        "random_uint16",
        lambda t: t.empty(3, dtype=t.uint16).random_(),
        lambda g: g.random_((3,), np.uint16),
    ),
    ("normal_neg_std", lambda t: t.empty(3).normal_(0, -1), lambda g: g.normal((3,), 0, -1)),
    (
        "normal_nan_std",
        lambda t: t.empty(3).normal_(0, float("nan")),
        lambda g: g.normal((3,), 0, float("nan")),
    ),
    (
        "normal_long",
        lambda t: t.empty(3, dtype=t.int64).normal_(),
        lambda g: g.normal((3,), dtype=np.int64),
    ),
    (
        "normal_tensor_std",
        lambda t: t.normal(0.0, t.tensor([1.0, -1.0, 2.0])),
        lambda g: g.normal_tensor(0.0, np.array([1.0, -1.0, 2.0], F32)),
    ),
    (
        "normal_tensor_float_std",
        lambda t: t.normal(t.zeros(3), -1.0),
        lambda g: g.normal_tensor(np.zeros(3, F32), -1.0),
    ),
    ("uniform_reversed", lambda t: t.empty(3).uniform_(5, 3), lambda g: g.uniform((3,), 5, 3)),
    (
        "uniform_span",
        lambda t: t.empty(3).uniform_(-3e38, 3e38),
        lambda g: g.uniform((3,), -3e38, 3e38),
    ),
    (
        "uniform_span_f64",
        lambda t: t.empty(3, dtype=t.float64).uniform_(-1e308, 1e308),
        lambda g: g.uniform((3,), -1e308, 1e308, F64),
    ),
    (
        "uniform_span_half",
        lambda t: t.empty(3, dtype=t.float16).uniform_(-60000, 60000),
        lambda g: g.uniform((3,), -60000, 60000, F16),
    ),
    (
        "uniform_nan",
        lambda t: t.empty(3).uniform_(float("nan"), 1),
        lambda g: g.uniform((3,), float("nan"), 1),
    ),
    (
        "uniform_inf",
        lambda t: t.empty(3, dtype=t.float64).uniform_(0, float("inf")),
        lambda g: g.uniform((3,), 0, float("inf"), F64),
    ),
    (
        "uniform_half_to",
        lambda t: t.empty(3, dtype=t.float16).uniform_(0, 70000),
        lambda g: g.uniform((3,), 0, 70000, F16),
    ),
    ("rand_int", lambda t: t.rand(3, dtype=t.int32), lambda g: g.rand((3,), np.int32)),
    ("bernoulli_p_big", lambda t: t.empty(3).bernoulli_(1.5), lambda g: g.bernoulli_((3,), 1.5)),
    ("bernoulli_p_neg", lambda t: t.empty(3).bernoulli_(-0.1), lambda g: g.bernoulli_((3,), -0.1)),
    (
        "bernoulli_tensor_bad",
        lambda t: t.bernoulli(t.tensor([0.5, 1.5])),
        lambda g: g.bernoulli(np.array([0.5, 1.5], F32)),
    ),
    (
        "bernoulli_tensor_long",
        lambda t: t.bernoulli(t.tensor([1, 0])),
        lambda g: g.bernoulli(np.array([1, 0])),
    ),
    (
        "bernoulli_expand",
        lambda t: t.empty(3).bernoulli_(t.tensor([0.1, 0.2])),
        lambda g: g.bernoulli_((3,), np.array([0.1, 0.2], F32)),
    ),
    ("randperm_neg", lambda t: t.randperm(-1), lambda g: g.randperm(-1)),
    ("randperm_bool", lambda t: t.randperm(3, dtype=t.bool), lambda g: g.randperm(3, np.bool_)),
    (
        "randperm_uint8",
        lambda t: t.randperm(257, dtype=t.uint8),
        lambda g: g.randperm(257, np.uint8),
    ),
    ("randperm_int8", lambda t: t.randperm(130, dtype=t.int8), lambda g: g.randperm(130, np.int8)),
    ("randperm_half", lambda t: t.randperm(2050, dtype=t.float16), lambda g: g.randperm(2050, F16)),
    (
        "randperm_float",
        lambda t: t.randperm(2**24 + 2, dtype=t.float32),
        lambda g: g.randperm(2**24 + 2, F32),
    ),
    ("exponential_zero", lambda t: t.empty(3).exponential_(0), lambda g: g.exponential((3,), 0)),
    (
        "exponential_nan",
        lambda t: t.empty(3).exponential_(float("nan")),
        lambda g: g.exponential((3,), float("nan")),
    ),
    (
        "multinomial_too_many",
        lambda t: t.multinomial(t.tensor([0.1, 0.2]), 3),
        lambda g: g.multinomial(np.array([0.1, 0.2], F32), 3),
    ),
    (
        "multinomial_zero_sum",
        lambda t: t.multinomial(t.tensor([0.0, 0.0]), 1),
        lambda g: g.multinomial(np.zeros(2, F32), 1),
    ),
    (
        "multinomial_negative",
        lambda t: t.multinomial(t.tensor([-0.1, 0.2]), 1),
        lambda g: g.multinomial(np.array([-0.1, 0.2], F32), 1),
    ),
    (
        "multinomial_neg_repl",
        lambda t: t.multinomial(t.tensor([-0.1, 0.2]), 2, True),
        lambda g: g.multinomial(np.array([-0.1, 0.2], F32), 2, True),
    ),
    (
        "multinomial_inf_repl",
        lambda t: t.multinomial(t.tensor([0.1, float("inf")]), 2, True),
        lambda g: g.multinomial(np.array([0.1, np.inf], F32), 2, True),
    ),
    (
        "multinomial_nan",
        lambda t: t.multinomial(t.tensor([0.1, float("nan")]), 1),
        lambda g: g.multinomial(np.array([0.1, np.nan], F32), 1),
    ),
    (
        "multinomial_n0",
        lambda t: t.multinomial(t.tensor([0.1, 0.2]), 0),
        lambda g: g.multinomial(np.array([0.1, 0.2], F32), 0),
    ),
    (
        "multinomial_3d",
        lambda t: t.multinomial(t.zeros(2, 2, 2), 1),
        lambda g: g.multinomial(np.zeros((2, 2, 2), F32), 1),
    ),
    (
        "multinomial_long",
        lambda t: t.multinomial(t.tensor([1, 2]), 1),
        lambda g: g.multinomial(np.array([1, 2]), 1),
    ),
    (
        "multinomial_row",
        lambda t: t.multinomial(t.tensor([[0.1, 0.2], [0.0, 0.0]]), 2, True),
        lambda g: g.multinomial(np.array([[0.1, 0.2], [0.0, 0.0]], F32), 2, True),
    ),
    (
        "multinomial_empty_row",
        lambda t: t.multinomial(t.zeros(3, 0), 1, True),
        lambda g: g.multinomial(np.zeros((3, 0), F32), 1, True),
    ),
    (
        "randint_overflow",
        lambda t: t.randint(0, 2**63, (5,)),
        lambda g: g.randint((5,), 0, 2**63),
    ),
    ("rand_negative_dim", lambda t: t.rand(2, -1), lambda g: g.rand((2, -1))),
    ("manual_seed_float", lambda t: t.Generator().manual_seed(1.5), lambda g: g.manual_seed(1.5)),
    ("manual_seed_big", lambda t: t.Generator().manual_seed(2**64), lambda g: g.manual_seed(2**64)),
    (
        "manual_seed_small",
        lambda t: t.Generator().manual_seed(-(2**63) - 1),
        lambda g: g.manual_seed(-(2**63) - 1),
    ),
]
