"""Record PyTorch's answers for the differential tests (needs real PyTorch 2.13).

    uv run python tests/oracle/record.py            # rewrite every recording
    uv run python tests/oracle/record.py tests/ops  # only the tests under a path
    uv run python tests/oracle/record.py --check    # are the recordings current?

It runs pytest with GRADSHELL_ORACLE=record: each test's `import torch` gets a proxy that
runs real PyTorch and writes down each answer into tests/oracle/<dir>/<module>.json.gz.
A run without PyTorch replays them (see the README's Tests section). `--check` records
into a temporary folder and compares with the committed recordings.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
#: the test folders whose tests ask PyTorch (the rest never import it)
DEFAULT_PATHS = ["tests"]


def _versions() -> dict:
    import numpy
    import torch

    return {"torch": torch.__version__.split("+")[0], "numpy": numpy.__version__}


def record(paths: list[str], into: Path, extra: list[str]) -> int:
    """Run the tests under `paths` recording into folder `into`; pytest's exit code."""
    env = dict(os.environ, GRADSHELL_ORACLE="record", GRADSHELL_ORACLE_DIR=str(into))
    env.pop("GRADSHELL_HIDE_TORCH", None)
    # The slow tiers (--run-slow) are compared live only: their answers are megabytes.
    # one process: recording is deterministic in the order the files run
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0"]
    done = subprocess.run([*cmd, *extra, *paths], cwd=ROOT, env=env, check=False)
    (into / "manifest.json").write_text(json.dumps(_versions(), indent=1) + "\n", "utf-8")
    return done.returncode


def _recordings(folder: Path) -> set[Path]:
    return {p.relative_to(folder) for p in folder.rglob("*.json.gz")}


_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def _logs(p: Path) -> dict:
    """A recording's logs, object addresses aside (reprs of grad_fn nodes carry them)."""
    return json.loads(_ADDRESS.sub("0x", gzip.decompress(p.read_bytes()).decode("utf-8")))


def _difference(old: Path | None, new: Path | None) -> str:
    """What differs between a committed recording and a fresh one ('' when nothing)."""
    if old is None:
        return "not committed (a new test file asks PyTorch)"
    if new is None:
        return "no longer recorded (its tests ask PyTorch nothing now, or are gone)"
    a, b = _logs(old), _logs(new)
    for key in sorted(set(a) | set(b)):
        if a.get(key) == b.get(key):
            continue
        if key not in b or key not in a:
            return f"{key}: {'only committed' if key in a else 'new'}"
        for i, (x, y) in enumerate(zip(a[key], b[key], strict=False)):
            if x != y:
                return f"{key}: operation {i + 1}: committed {x[:3]!s:.160}, now {y[:3]!s:.160}"
        return f"{key}: {len(a[key])} operations committed, {len(b[key])} now"
    return ""


def check(paths: list[str], extra: list[str]) -> int:
    """0 when recording again gives the committed recordings; otherwise says which files
    are stale, what differs first, and how to record them again."""
    committed = _recordings(HERE)
    run = paths
    if paths == DEFAULT_PATHS:
        # Only the test files that have recordings ask PyTorch: recording them again is the
        # whole check (a test file that newly asks PyTorch fails the run without it, for
        # want of a recording). Each file starts from PyTorch's fresh settings, so it
        # records alone as it does within the whole suite.
        run = sorted(
            str(_module(rel))
            for rel in committed
            if (ROOT / _module(rel)).exists() and rel.name != "conftest.json.gz"
        )
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        code = record(run, fresh, extra)
        old, new = committed, _recordings(fresh)
        if paths != DEFAULT_PATHS:  # a part of the suite: only the files it recorded
            old &= new
        stale = []
        for rel in sorted(old | new):
            why = _difference(
                HERE / rel if rel in old else None, fresh / rel if rel in new else None
            )
            if why:
                stale.append((rel, why))
        if stale:
            print(f"{len(stale)} recordings of PyTorch's answers are not current:")
            for rel, why in stale:
                test = _module(rel)
                print(f"  tests/oracle/{rel}: {why}")
                print(f"    record it again: uv run python tests/oracle/record.py {test}")
            return 1
        if code != 0:
            print(f"recordings current, but pytest exited {code} while recording")
            return code
        print(f"recordings current: {len(old)} files")
        return 0


def _module(recording: Path) -> Path:
    """The test module ('tests/ops/test_x.py') whose recording is `recording` (relative to
    tests/oracle)."""
    return Path("tests") / recording.with_name(recording.name.replace(".json.gz", ".py"))


def _covers(path: str, recording: Path) -> bool:
    """Whether test path `path` ('tests', 'tests/ops', 'tests/ops/test_x.py') holds the
    module whose recording is `recording` (relative to tests/oracle)."""
    module = _module(recording)
    target = Path(path.rstrip("/"))
    return module == target or target in module.parents


def main(argv: list[str] | None = None) -> int:
    """Record (or check) the oracle's recordings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="test paths (default: all of tests/)")
    parser.add_argument("--check", action="store_true", help="only check they are current")
    args, extra = parser.parse_known_args(argv)
    paths = args.paths or DEFAULT_PATHS
    if args.check:
        return check(paths, extra)
    # Whole files are recorded afresh (recordings of deleted tests go away); a run that
    # selects tests within them (-k, ::name) adds to what the files hold.
    selected = any("::" in p for p in paths) or any(a.startswith("-k") for a in extra)
    if not selected:
        for old in _recordings(HERE):
            if any(_covers(p, old) for p in paths):
                (HERE / old).unlink()
        for folder in sorted((p for p in HERE.rglob("*") if p.is_dir()), reverse=True):
            if not any(folder.iterdir()):
                shutil.rmtree(folder)
    code = record(paths, HERE, extra)
    print(f"recorded into {HERE} (pytest exit code {code}: failing tests are recorded too)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
