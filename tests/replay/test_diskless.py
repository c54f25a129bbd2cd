"""Replay writes no files: a transcript someone sent leaves the replayer's disk as it
was, whatever it `%save`s, `%graph`s or `torch.save`s (gradshell.replay.diskless)."""

from __future__ import annotations

import os

import pytest

from gradshell.replay import cli
from gradshell.replay.diskless import ReplayFiles
from gradshell.replay.parser import parse_transcript
from gradshell.replay.runner import gradshell_session, run_session
from gradshell.shell.files import FileAccessError, PathPolicy

HIDDEN = "hidden files and folders (names starting with '.') are off limits to gradshell's"

SENT = f"""\
>>> import torch
>>> x = torch.ones(2)
>>> %save ~/.bashrc
gradshell: ~/.bashrc: {HIDDEN} file commands
>>> %save --force ~/.profile
gradshell: ~/.profile: {HIDDEN} file commands
>>> %save existing.py
saved 2 inputs to existing.py
>>> %save --force existing.py
saved 2 inputs to existing.py
>>> torch.save(x, 'model.pt')
>>> torch.save(x, 'conftest.py')
>>> torch.load('model.pt')
tensor([1., 1.])
"""


@pytest.fixture
def home(tmp_path, monkeypatch):
    """The replayer's home, where they replay a transcript someone sent them."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".bashrc").write_text("# the replayer's shell\n")
    (tmp_path / "existing.py").write_text("# the replayer's program\n")
    return tmp_path


def snapshot(root) -> dict[str, tuple[bytes, int, int]]:
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            with open(path, "rb") as f:
                found[os.path.relpath(path, root)] = (f.read(), info.st_mode, info.st_mtime_ns)
    return found


def test_a_replayed_transcript_leaves_the_disk_untouched(home, capsys):
    (home / "sent.gsh").write_text(SENT)
    before = snapshot(home)
    assert cli.main(["sent.gsh", "--no-color"]) == 0, capsys.readouterr().out
    assert snapshot(home) == before


def test_what_replay_kept_off_the_disk_is_named_when_a_session_fails(home, capsys):
    (home / "sent.gsh").write_text(SENT + ">>> 1 + 1\n3\n")
    before = snapshot(home)
    assert cli.main(["sent.gsh", "--no-color"]) == 1
    report = capsys.readouterr().out
    assert "note: replay writes no files; existing.py, conftest.py, model.pt existed only " in (
        report
    )
    assert snapshot(home) == before


def test_the_replay_kernel_writes_in_a_directory_it_removes(home):
    shells = []

    def factory(style: str, prompt: str):
        shells.append(gradshell_session(style, prompt))
        return shells[0]

    (session,) = parse_transcript(SENT, "sent.gsh").sessions
    result = run_session("sent.gsh", session, factory=factory)
    assert result.ok, [r.got for r in result.failures]
    assert result.unwritten == ["existing.py", "conftest.py", "model.pt"]
    assert not shells[0].workdir.exists()


def test_replay_files_read_back_what_they_kept_and_refuse_as_a_session_would(tmp_path):
    (tmp_path / "notes.py").write_text("on disk\n")
    files = ReplayFiles(PathPolicy(tmp_path))
    assert files.read_text("notes.py") == "on disk\n"
    assert files.write_text("notes.py", "replayed\n") == "notes.py"
    assert files.read_text("notes.py") == "replayed\n"
    assert (tmp_path / "notes.py").read_text() == "on disk\n"
    with pytest.raises(FileAccessError, match="hidden"):
        files.write_text(".bashrc", "x", force=True)
    with pytest.raises(FileAccessError, match="outside the session directory"):
        files.write_text("../x.py", "x")
    assert files.unwritten == ["notes.py"]
