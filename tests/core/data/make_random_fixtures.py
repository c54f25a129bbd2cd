"""Record PyTorch's random outputs for ``tests/core/test_random.py`` (needs torch 2.13.0).

Run from the repository root::

    uv run python tests/core/data/make_random_fixtures.py

It writes ``tests/core/data/random_fixtures.json``: for every case of ``random_cases.py`` and
every fixture seed, a digest of the outputs over the whole size sequence and of the final
generator state; digests for a few 10^6-element draws and for seeded random interleavings
of calls; PyTorch's error messages for bad calls; a handful of literal values; and digests
recorded under ``ATEN_CPU_CAPABILITY=default`` (PyTorch's portable kernels), which gradshell
reproduces with ``set_capability("default")``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "random_fixtures.json"


def load_cases():
    """Import ``random_cases.py`` from this folder (tests have no packages)."""
    spec = importlib.util.spec_from_file_location("random_cases", HERE / "random_cases.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["random_cases"] = module
    spec.loader.exec_module(module)
    return module


rc = load_cases()

BIG = {
    "randn_f32": lambda t: t.randn(10**6),
    "normal_f64": lambda t: t.empty(10**6 + 3, dtype=t.float64).normal_(-2.0, 7.0),
    "uniform_f64": lambda t: t.empty(10**6, dtype=t.float64).uniform_(0.1, 0.7),
    "randperm": lambda t: t.randperm(10**6),
}
INTERLEAVINGS = 120  # recorded; the differential test runs 300 live
DEFAULT_CAPABILITY_CASES = [
    "uniform_f32",
    "uniform_wide_f64",
    "randn_f32",
    "normal_f32",
    "normal_f64",
    "normal_size_f16",
    "normal_noncontig_f32",
    "normal_noncontig_f64",
]


def interleaving(index: int) -> list[tuple[str, int]]:
    """The ``index``-th random sequence of (case name, size) calls."""
    import random

    rng = random.Random(9000 + index)
    names = [c.name for c in rc.CASES]
    ops = []
    for _ in range(rng.randint(2, 20)):
        case = rc.BY_NAME[rng.choice(names)]
        sizes = [s for s in case.sizes if s <= 40] or list(case.sizes)
        ops.append((case.name, rng.choice(sizes + [s for s in case.sizes if s >= 1000][:1])))
    return ops


def sequence_digest(seed: int, ops, call, state) -> str:
    """Digest of the outputs of ``ops`` run back to back after seeding, then of the state."""
    h = hashlib.sha256(str(seed).encode())
    for name, n in ops:
        rc.digest_update(h, rc.as_array(call(rc.BY_NAME[name], n)))
    h.update(state())
    return h.hexdigest()[:24]


def torch_state(torch):
    """PyTorch's global generator state as bytes."""
    return torch.get_rng_state().numpy().tobytes()


def record_default_capability() -> dict:
    """Digests from a child process running PyTorch's portable (non-AVX2) kernels."""
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default")
    code = f"import sys; sys.path.insert(0, {str(HERE)!r}); import make_random_fixtures as m; m.dump_default()"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def dump_default() -> None:
    """Child-process entry point for ``record_default_capability``."""
    import torch

    assert torch.backends.cpu.get_cpu_capability() == "DEFAULT"
    res = {}
    for name in DEFAULT_CAPABILITY_CASES:
        case = rc.BY_NAME[name]
        for seed in rc.FIXTURE_SEEDS[:4]:
            torch.manual_seed(seed)
            res[f"{name}|{seed}"] = rc.run_sequence(
                case, seed, lambda n, case=case: case.theirs(torch, n), lambda: torch_state(torch)
            )
    print(json.dumps(res))


def main() -> None:
    """Record everything and write the JSON file."""
    import torch

    warnings.simplefilter("ignore")  # PyTorch warns about float ranges beyond 2^digits
    torch.set_num_threads(1)
    fixtures: dict = {
        "torch_version": torch.__version__,
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "sequences": {},
    }
    for case in rc.CASES:
        for seed in rc.FIXTURE_SEEDS:
            torch.manual_seed(seed)
            fixtures["sequences"][f"{case.name}|{seed}"] = rc.run_sequence(
                case, seed, lambda n, case=case: case.theirs(torch, n), lambda: torch_state(torch)
            )
    fixtures["big"] = {}
    for name, fn in BIG.items():
        torch.manual_seed(0)
        h = hashlib.sha256()
        rc.digest_update(h, rc.as_array(fn(torch)))
        h.update(torch_state(torch))
        fixtures["big"][name] = h.hexdigest()[:24]
    fixtures["interleavings"] = []
    for i in range(INTERLEAVINGS):
        seed = 31 * i + 5
        torch.manual_seed(seed)
        fixtures["interleavings"].append(
            sequence_digest(
                seed,
                interleaving(i),
                lambda case, n: case.theirs(torch, n),
                lambda: torch_state(torch),
            )
        )
    fixtures["errors"] = {}
    for label, theirs, _ in rc.ERROR_CASES:
        try:
            theirs(torch)
        except Exception as exc:  # noqa: BLE001 - recording whatever PyTorch raises
            fixtures["errors"][label] = [type(exc).__name__, str(exc).split("\n")[0]]
        else:
            raise AssertionError(f"{label} did not raise")
    torch.manual_seed(0)
    literals = {
        "rand_f32_5": [float(v).hex() for v in torch.rand(5).tolist()],
        "randn_f32_20": [float(v).hex() for v in torch.randn(20).tolist()],
        "randn_f64_3": [float(v).hex() for v in torch.randn(3, dtype=torch.float64).tolist()],
        "randint_10": torch.randint(0, 10, (10,)).tolist(),
        "randperm_10": torch.randperm(10).tolist(),
        "state_sha256": hashlib.sha256(torch_state(torch)).hexdigest(),
    }
    torch.manual_seed(0)
    literals["fresh_state_seed0_sha256"] = hashlib.sha256(torch_state(torch)).hexdigest()
    literals["generator_initial_seed"] = torch.Generator().initial_seed()
    fixtures["literals"] = literals
    fixtures["default_capability"] = record_default_capability()
    OUT.write_text(json.dumps(fixtures, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
