"""Event logs: the sequence of PyTorch operations one test made and what each answered,
and the recording files (tests/oracle/<dir>/<module>.json.gz) that hold them.

An event is [signature, kind, payload, warnings]: kind "v" (a plain value), "p" (a new
PyTorch object, kept as a proxy), "r" (an object seen before, by label), "x" (an
exception) or "cb" (PyTorch called back into the test: a hook, a function given to
torch.autograd.functional). The signature names the operation and its arguments so that
a replay notices when a test no longer does what was recorded.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path

#: where the recordings live, mirroring the layout of tests/
ORACLE_DIR = Path(__file__).resolve().parents[3] / "oracle"
TESTS_DIR = ORACLE_DIR.parent


class Log:
    """One key's events (a test, a module's collection, a shared fixture) and the
    proxies its replay or recording has made so far."""

    def __init__(
        self,
        key: str,
        prefix: str,
        events: list | None,
        parents: tuple | Callable[[], tuple] = (),
    ) -> None:
        self.key = key
        self.prefix = prefix
        self.recorded = events  # None when there is no recording (record mode: a new one)
        self.events: list = [] if events is None else events
        self.pos = 0
        self._parents = parents
        self.proxies: dict[str, object] = {}
        self.by_real: dict[int, object] = {}
        self.callbacks: dict[int, int] = {}
        self.callables: list = []
        self.count = 0
        self.broken: str | None = None
        self.failed_example: tuple | None = None  # where the example that failed began

    @property
    def parents(self) -> tuple:
        """The logs whose proxies this one may refer to: its file's collection and the
        shared fixtures it uses. A callable is asked each time, because a test's log opens
        before its fixtures are set up."""
        return self._parents() if callable(self._parents) else self._parents

    def new_label(self) -> str:
        """The next proxy label of this log (stable from run to run)."""
        self.count += 1
        return f"{self.prefix}{self.count}"

    def find_label(self, label: str):
        """The proxy called `label` in this log or the logs it inherits from."""
        for log in (self, *self.parents):
            if label in log.proxies:
                return log.proxies[label]
        return None

    def find_real(self, real):
        """The proxy already standing for the PyTorch object `real`, if any."""
        for log in (self, *self.parents):
            proxy = log.by_real.get(id(real))
            if proxy is not None:
                return proxy
        return None

    def callback_index(self, fn) -> int:
        """A stable number for a Python function handed to PyTorch."""
        key = id(fn)
        if key not in self.callbacks:
            self.callbacks[key] = len(self.callables)
            self.callables.append(fn)
        return self.callbacks[key]

    def mark(self) -> tuple:
        """Where the replay stands: an example of a Hypothesis test begins here."""
        return self.pos, self.count, len(self.callables)

    def rewind(self, mark: tuple) -> None:
        """Back to `mark`, to replay the same example again (Hypothesis runs a failing
        example a second time to report it)."""
        self.pos, self.count, n = mark
        for fn in self.callables[n:]:
            self.callbacks.pop(id(fn), None)
        del self.callables[n:]
        self.broken = None

    def release(self) -> None:
        """Drop the proxies (and the PyTorch objects they keep alive)."""
        self.proxies.clear()
        self.by_real.clear()
        self.callbacks.clear()
        self.callables.clear()


def recording_path(key: str, root: Path = ORACLE_DIR) -> Path:
    """The file that holds the log of `key` ('tests/ops/test_unary.py::test_x[1]')."""
    module = key.split("::", 1)[0]
    rel = Path(module).relative_to("tests") if module.startswith("tests/") else Path(module)
    return root / rel.with_suffix(".json.gz")


def read(path: Path) -> dict:
    """The logs stored in one recording file ({} when it does not exist)."""
    if not path.exists():
        return {}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def write(path: Path, logs: dict) -> None:
    """Store logs, byte for byte the same for the same answers (no timestamp, sorted)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(logs, sort_keys=True, separators=(",", ":"), allow_nan=False)
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
        f.write(text.encode("utf-8"))
