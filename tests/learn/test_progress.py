"""The progress file: saved atomically, merged with other shells' saves, and never a
crash: truncated, garbage, future-version, unreadable files and read-only folders each
give a clear notice; a writer killed with SIGKILL mid-write leaves a readable file."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from gradshell.learn import progress as progress_mod
from gradshell.learn.progress import ProgressStore, default_path


def _store(tmp_path: Path) -> ProgressStore:
    return ProgressStore(tmp_path / "learn" / "progress.json")


def test_default_path_is_in_the_shells_data_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADSHELL_DATA_DIR", str(tmp_path / "d"))
    assert default_path() == tmp_path / "d" / "learn" / "progress.json"
    monkeypatch.delenv("GRADSHELL_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert default_path() == tmp_path / "xdg" / "gradshell" / "learn" / "progress.json"


def test_round_trip_and_resume_point(tmp_path):
    store = _store(tmp_path)
    assert store.load().lessons == {}
    assert store.record("accumulation", step="zero", done="first-backward")
    assert store.record("accumulation", skipped="second-backward")
    again = _store(tmp_path)
    p = again.load()
    assert not again.notices
    entry = p.lessons["accumulation"]
    assert (entry.step, entry.done, entry.skipped) == (
        "zero",
        ["first-backward"],
        ["second-backward"],
    )
    assert p.last == "accumulation"
    # passing a skipped step later moves it to done
    again.record("accumulation", done="second-backward")
    assert again.progress.lessons["accumulation"].skipped == []


def test_two_shells_on_different_lessons_keep_each_others_progress(tmp_path):
    a, b = _store(tmp_path), _store(tmp_path)
    a.load()
    b.load()
    a.record("graph", step="leaf")
    b.record("chain", step="build")
    a.record("graph", step="first-node")
    final = _store(tmp_path).load()
    assert final.lessons["graph"].step == "first-node"
    assert final.lessons["chain"].step == "build"


def test_reset_one_lesson_or_all(tmp_path):
    store = _store(tmp_path)
    store.load()
    store.record("graph", step="leaf")
    store.record("chain", step="build")
    store.reset("graph")
    assert set(_store(tmp_path).load().lessons) == {"chain"}
    store.reset(None)
    assert _store(tmp_path).load().lessons == {}


def _set_aside(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "learn").glob("progress.json.*"))


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        (
            b'{"format": "gradshell-learn-progress", "version": 1, "lessons": {"gra',
            "not valid JSON",
        ),
        (bytes(range(256)) * 4, "not UTF-8 text"),
        (b"\x00\x01garbage\xff", "not UTF-8 text"),
        (b"", "not valid JSON"),
        (b"[1, 2, 3]", "not a gradshell progress file"),
        (
            b'{"format": "gradshell-learn-progress", "version": 1, "lessons": {"a": {"step": 5}}}',
            "step is not a string",
        ),
        (b'{"format": "gradshell-learn-progress", "version": "one"}', "version is missing"),
    ],
    ids=["truncated", "binary", "garbage", "empty", "wrong-shape", "wrong-type", "bad-version"],
)
def test_damaged_files_are_set_aside_with_a_notice(tmp_path, content, detail):
    path = tmp_path / "learn" / "progress.json"
    path.parent.mkdir()
    path.write_bytes(content)
    store = _store(tmp_path)
    assert store.load().lessons == {}
    (notice,) = store.take_notices()
    assert notice.kind == "corrupt"
    assert detail in notice.fields["detail"]
    (moved,) = _set_aside(tmp_path)
    assert moved.read_bytes() == content  # nothing of the learner's is lost
    assert notice.fields["moved"] == str(moved)
    assert not path.exists()
    assert store.record("graph", step="leaf")  # and a new file starts
    assert _store(tmp_path).load().lessons["graph"].step == "leaf"


def test_a_future_version_is_set_aside_untouched(tmp_path):
    path = tmp_path / "learn" / "progress.json"
    path.parent.mkdir()
    data = {"format": "gradshell-learn-progress", "version": 7, "lessons": {}, "new": 1}
    path.write_text(json.dumps(data))
    store = _store(tmp_path)
    store.load()
    (notice,) = store.take_notices()
    assert notice.kind == "future" and notice.fields["version"] == 7
    (moved,) = _set_aside(tmp_path)
    assert ".v7-" in moved.name and json.loads(moved.read_text()) == data


def test_the_notice_reads_clearly_in_both_languages(tmp_path):
    from gradshell.learn.i18n import tr

    path = tmp_path / "learn" / "progress.json"
    path.parent.mkdir()
    path.write_text("{")
    store = _store(tmp_path)
    store.load()
    (notice,) = store.take_notices()
    en = tr("en", "store_corrupt", **notice.fields)
    zh = tr("zh", "store_corrupt", **notice.fields)
    assert "could not be read" in en and notice.fields["moved"] in en
    assert "读不出来" in zh and notice.fields["moved"] in zh


def test_an_unreadable_file_is_left_alone_and_not_overwritten(tmp_path):
    path = tmp_path / "learn" / "progress.json"
    path.mkdir(parents=True)  # a folder where the file should be
    store = _store(tmp_path)
    store.load()
    (notice,) = store.take_notices()
    assert notice.kind == "unreadable"
    assert not store.record("graph", step="leaf")
    assert path.is_dir()


def test_a_failed_rename_keeps_the_old_file_and_leaves_no_temp(tmp_path, monkeypatch):
    store = _store(tmp_path)
    store.load()
    store.record("graph", step="leaf")
    before = store.path.read_bytes()

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(progress_mod.os, "replace", broken)
    assert not store.record("graph", step="first-node")
    (notice,) = store.take_notices()
    assert notice.kind == "unwritable" and "No space left" in notice.fields["error"]
    assert store.path.read_bytes() == before
    assert [p.name for p in store.path.parent.iterdir()] == ["progress.json"]
    assert not store.record("graph", step="is-leaf")
    assert store.take_notices() == []  # told once


def test_a_failed_fsync_keeps_the_old_file(tmp_path, monkeypatch):
    store = _store(tmp_path)
    store.load()
    store.record("graph", step="leaf")
    before = store.path.read_bytes()
    monkeypatch.setattr(
        progress_mod.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(5, "I/O error"))
    )
    assert not store.record("graph", step="first-node")
    assert store.path.read_bytes() == before
    assert [p.name for p in store.path.parent.iterdir()] == ["progress.json"]


def test_stale_temporary_files_are_cleaned_fresh_ones_kept(tmp_path):
    folder = tmp_path / "learn"
    folder.mkdir()
    old = folder / ".progress-old.tmp"
    new = folder / ".progress-new.tmp"
    old.write_text("half a file")
    new.write_text("being written")
    past = time.time() - progress_mod.STALE_TEMP_SECONDS - 60
    os.utime(old, (past, past))
    store = _store(tmp_path)
    store.load()
    assert not old.exists() and new.exists()
    assert store.take_notices() == []


# --- read-only folder ---------------------------------------------------------------------


def _read_only_scenario(folder: str) -> dict:
    """Load and save in a read-only folder; report what happened (never raises)."""
    from gradshell.learn.progress import ProgressStore

    try:
        store = ProgressStore(Path(folder) / "progress.json")
        loaded = store.load()
        steps = {k: v.step for k, v in loaded.lessons.items()}
        saved = store.record("graph", step="first-node")
        notices = [(n.kind, n.fields) for n in store.take_notices()]
        return {"steps": steps, "saved": saved, "notices": notices}
    except BaseException as exc:  # the test fails on any crash
        return {"crash": f"{type(exc).__name__}: {exc}"}


def _as_nobody(conn, folder):
    os.setgid(65534)
    os.setuid(65534)
    conn.send(_read_only_scenario(folder))
    conn.close()


def _run_read_only(folder: Path) -> dict:
    if os.geteuid() != 0:
        return _read_only_scenario(str(folder))
    # root ignores permissions: run the scenario in a forked child as `nobody`
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_as_nobody, args=(child, str(folder)))
    proc.start()
    result = parent.recv()
    proc.join(30)
    return result


@pytest.fixture
def read_only_folder():
    base = Path(tempfile.mkdtemp(prefix="gs-ro-"))
    base.chmod(0o755)
    folder = base / "learn"
    folder.mkdir()
    yield folder
    folder.chmod(0o755)
    for p in folder.iterdir():
        p.unlink()
    folder.rmdir()
    base.rmdir()


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
def test_read_only_folder_loads_and_goes_on_without_saving(read_only_folder):
    good = {
        "format": "gradshell-learn-progress",
        "version": 1,
        "last": "graph",
        "lessons": {"graph": {"step": "leaf", "done": [], "skipped": [], "finished": False}},
    }
    path = read_only_folder / "progress.json"
    path.write_text(json.dumps(good))
    path.chmod(0o644)
    read_only_folder.chmod(0o555)
    result = _run_read_only(read_only_folder)
    assert "crash" not in result, result
    assert result["steps"] == {"graph": "leaf"}
    assert result["saved"] is False
    ((kind, fields),) = result["notices"]
    assert kind == "unwritable" and fields["error"]
    assert json.loads(path.read_text()) == good


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
def test_read_only_folder_with_a_damaged_file_leaves_it_untouched(read_only_folder):
    path = read_only_folder / "progress.json"
    path.write_text("{truncated")
    path.chmod(0o644)
    read_only_folder.chmod(0o555)
    result = _run_read_only(read_only_folder)
    assert "crash" not in result, result
    assert result["saved"] is False
    ((kind, fields),) = result["notices"]
    assert kind == "unmovable" and "not valid JSON" in fields["detail"]
    assert path.read_text() == "{truncated"


# --- kill -9 in the middle of writing -----------------------------------------------------

WRITER = textwrap.dedent(
    """
    import os, stat, sys, time
    from gradshell.learn import progress
    from gradshell.learn.progress import ProgressStore

    real_fsync = os.fsync

    def slow_fsync(fd):  # a slow disk: the kill often lands between write and rename
        if stat.S_ISREG(os.fstat(fd).st_mode):
            time.sleep(0.1)
        real_fsync(fd)

    progress.os.fsync = slow_fsync
    store = ProgressStore(sys.argv[1])
    store.load()
    for i in range(3000):  # a big file: each save takes a while
        store.progress.lesson(f"lesson-{i}").done = [f"step-{k}" for k in range(20)]
    store.save(None)
    print("ready", flush=True)
    n = 0
    while True:
        n += 1
        store.record("counter", step=f"step-{n}")
    """
)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_killed_mid_write_the_file_is_always_readable(tmp_path):
    path = tmp_path / "learn" / "progress.json"
    rng = random.Random(1234)
    steps_seen = []
    mid_write = 0
    for _ in range(12):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        time.sleep(rng.uniform(0.05, 0.6))
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        mid_write += any(path.parent.glob(".progress-*.tmp"))
        store = ProgressStore(path)
        loaded = store.load()
        assert store.take_notices() == []  # never damaged
        assert len(loaded.lessons) >= 3000
        steps_seen.append(loaded.lessons.get("counter") and loaded.lessons["counter"].step)
    assert any(steps_seen)  # saves did happen between the kills
    assert mid_write  # and some kills did land in the middle of a save
