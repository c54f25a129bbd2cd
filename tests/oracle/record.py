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
import filecmp
import json
import os
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
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--run-slow"]
    done = subprocess.run([*cmd, *extra, *paths], cwd=ROOT, env=env, check=False)
    (into / "manifest.json").write_text(json.dumps(_versions(), indent=1) + "\n", "utf-8")
    return done.returncode


def _recordings(folder: Path) -> set[Path]:
    return {p.relative_to(folder) for p in folder.rglob("*.json.gz")}


def check(paths: list[str], extra: list[str]) -> int:
    """0 when recording again gives the committed files byte for byte."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        record(paths, fresh, extra)
        old, new = _recordings(HERE), _recordings(fresh)
        stale = sorted(str(p) for p in old ^ new)
        stale += sorted(str(p) for p in old & new if not filecmp.cmp(HERE / p, fresh / p, False))
        if stale:
            print("recordings out of date (run tests/oracle/record.py):", *stale, sep="\n  ")
            return 1
        print(f"recordings current: {len(old)} files")
        return 0


def main(argv: list[str] | None = None) -> int:
    """Record (or check) the oracle's recordings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="test paths (default: all of tests/)")
    parser.add_argument("--check", action="store_true", help="only check they are current")
    args, extra = parser.parse_known_args(argv)
    paths = args.paths or DEFAULT_PATHS
    if args.check:
        return check(paths, extra)
    if not args.paths:
        # A whole run starts from empty so that recordings of deleted tests go away.
        for old in _recordings(HERE):
            (HERE / old).unlink()
        for folder in sorted((p for p in HERE.rglob("*") if p.is_dir()), reverse=True):
            if not any(folder.iterdir()):
                shutil.rmtree(folder)
    code = record(paths, HERE, extra)
    print(f"recorded into {HERE} (pytest exit code {code}: failing tests are recorded too)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
