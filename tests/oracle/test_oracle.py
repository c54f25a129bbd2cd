"""The recorded oracle itself: what a test reads from PyTorch through a recording is what
it read while recording, and a recording that no longer fits the test fails it.

A small pure-Python module stands in for PyTorch, so these run with or without it."""

from __future__ import annotations

import sys
import types
import warnings

import numpy as np
import pytest
from support.oracle import codec
from support.oracle.engine import ORACLE, Mismatch
from support.oracle.log import Log, read, write

# -- a stand-in for torch ----------------------------------------------------------------------


class Box:
    """A tensor-like value: arithmetic, in-place update, hooks, warnings, errors."""

    def __init__(self, value):
        self.value = np.asarray(value, dtype=np.float32)
        self.hooks = []

    def __add__(self, other):
        return Box(self.value + (other.value if isinstance(other, Box) else other))

    def __radd__(self, other):
        return self + other

    def __iadd__(self, other):
        self.value = self.value + other
        return self

    def __repr__(self):
        return f"Box({self.value.tolist()})"

    def __array__(self, dtype=None, copy=None):
        return self.value

    def numpy(self):
        return self.value.copy()

    @property
    def shape(self):
        return tuple(self.value.shape)

    def register_hook(self, fn):
        self.hooks.append(fn)

    def fire(self):
        for fn in self.hooks:
            fn(Box(self.value * 2))

    def noisy(self):
        warnings.warn("noisy is deprecated", UserWarning, stacklevel=2)
        return self

    def bad(self):
        raise RuntimeError("bad: shapes [2] and [3] differ")


def _fake_module(name: str) -> types.ModuleType:
    mod = types.ModuleType(name)
    mod.Box = Box
    mod.box = Box
    return mod


@pytest.fixture
def fake():
    """Record, then replay, programs against the stand-in module."""
    name = "oracle_fake_torch"
    sys.modules[name] = _fake_module(name)
    saved = ORACLE.mode, ORACLE.current, dict(ORACLE.roots)

    def session(mode: str, events=None) -> Log:
        ORACLE.mode = mode
        ORACLE.roots.pop(name, None)
        ORACLE.current = Log("tests/oracle/test_oracle.py::fake", "t", events)
        return ORACLE.current

    yield name, session
    ORACLE.mode, ORACLE.current = saved[0], saved[1]
    ORACLE.roots.clear()
    ORACLE.roots.update(saved[2])
    del sys.modules[name]


def _program(lib) -> list:
    seen = []
    out = []
    a = lib.box([1.0, 2.0])
    b = a + 1
    out.append(repr(b))
    out.append(b.shape)
    out.append(isinstance(b, lib.Box))
    c = b
    c += 2
    out.append(c is b)
    a.register_hook(lambda g: seen.append(g.numpy()))
    a.fire()
    out.append(seen[0].tolist())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a.noisy()
    out.append([str(w.message) for w in caught])
    with pytest.raises(RuntimeError, match=r"shapes \[2\] and \[3\]"):
        a.bad()
    out.append(np.asarray(b).tolist())
    out.append(type(b).__name__)
    return out


def test_a_replay_reads_what_the_recording_read(fake):
    name, session = fake
    recording = session("record")
    recorded = _program(ORACLE.module(name))
    events = recording.events
    session("replay", events)
    replayed = _program(ORACLE.module(name))
    assert replayed == recorded
    assert recorded[0] == "Box([2.0, 3.0])"
    assert recorded[4] == [2.0, 4.0]  # the hook ran, in replay too
    assert ORACLE.finish(ORACLE.current) is None


def test_a_recording_that_no_longer_fits_fails_the_test(fake):
    name, session = fake
    recording = session("record")
    lib = ORACLE.module(name)
    repr(lib.box([1.0]) + 1)
    session("replay", recording.events)
    lib = ORACLE.module(name)
    with pytest.raises(Mismatch, match="stale recording"):
        repr(lib.box([1.0]) + 2.5)


def test_a_test_without_recording_says_how_to_record(fake):
    name, session = fake
    session("replay", None)
    with pytest.raises(Mismatch, match="record.py"):
        ORACLE.module(name).box([1.0])


def test_unfinished_replays_are_reported(fake):
    name, session = fake
    recording = session("record")
    lib = ORACLE.module(name)
    repr(lib.box([1.0]))
    session("replay", recording.events)
    ORACLE.module(name).box([1.0])
    assert "1 more PyTorch operations" in ORACLE.finish(ORACLE.current)


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        3,
        -2.5,
        float("nan"),
        float("-inf"),
        1 + 2j,
        "text",
        (1, [2.0, "x"]),
        {"a": (1, 2)},
        np.arange(6, dtype=np.float16).reshape(2, 3),
        np.array([True, False]),
        np.array(-2.5),
        np.zeros((0, 3), dtype=np.int64),
        np.float32(0.1),
        codec.Size([2, 3]),
    ],
    ids=repr,
)
def test_plain_values_survive_the_codec(value, tmp_path):
    assert codec.is_plain(value)
    path = tmp_path / "x.json.gz"
    write(path, {"k": codec.encode(value)})
    back = codec.decode(read(path)["k"])
    assert type(back) is type(value)
    if isinstance(value, (np.ndarray, np.generic)):
        assert back.dtype == value.dtype
        np.testing.assert_array_equal(back, value)
    elif isinstance(value, float) and value != value:
        assert back != back
    else:
        assert back == value
        assert repr(back) == repr(value)


def test_recorded_exceptions_keep_class_name_base_and_message():
    class LinAlgError(RuntimeError):
        pass

    back = codec.decode_exception(codec.encode_exception(LinAlgError("singular U")))
    assert isinstance(back, RuntimeError)
    assert type(back).__name__ == "LinAlgError"
    assert str(back) == "singular U"
    assert str(codec.decode_exception(codec.encode_exception(KeyError("k")))) == "'k'"


def test_recordings_are_written_the_same_byte_for_byte(tmp_path):
    logs = {"b": [["t0.getattr('x')", "v", 1.5, []]], "a": []}
    write(tmp_path / "one.json.gz", logs)
    write(tmp_path / "two.json.gz", dict(reversed(logs.items())))
    assert (tmp_path / "one.json.gz").read_bytes() == (tmp_path / "two.json.gz").read_bytes()
