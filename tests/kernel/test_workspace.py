"""The workspace: a plain folder, files without execute bits, within its caps."""

from __future__ import annotations

import os
import time

import pytest

from gradshell.kernel.workspace import WorkspaceError, prepare_workspace, sweep


def test_a_link_in_place_of_the_workspace_is_refused(tmp_path):
    os.symlink(tmp_path / "elsewhere", tmp_path / "gradshell-files")
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(WorkspaceError, match="not a folder"):
        prepare_workspace(tmp_path / "gradshell-files")


def test_sweep_takes_execute_bits_away(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("echo")
    script.chmod(0o775)
    report = sweep(tmp_path, since=time.time())
    assert script.stat().st_mode & 0o777 == 0o664
    assert report.made_plain == [script] and report.removed == []


def test_sweep_removes_only_new_files_past_the_caps(tmp_path):
    old = tmp_path / "old.bin"
    old.write_bytes(b"0" * 600)
    os.utime(old, (1, 1))
    since = time.time() - 1
    new = tmp_path / "new.bin"
    new.write_bytes(b"0" * 600)
    report = sweep(tmp_path, since=since, max_bytes=1000, max_files=10)
    assert report.removed == [new] and old.exists()
    assert "removed: new.bin" in report.words(tmp_path, 1000, 10)
