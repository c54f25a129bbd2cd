"""`gradshell replay` / `python -m gradshell.replay`: output, exit status, bad files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from replay_pysession import PythonSession

from gradshell.replay.cli import main

DATA = Path(__file__).parent / "data"


def run_cli(capsys, *argv, factory=PythonSession):
    code = main([*argv, "--no-color"], factory=factory)
    out = capsys.readouterr().out
    return code, out


def test_all_passing(tmp_path, capsys):
    (tmp_path / "a.gsh").write_text(">>> 1 + 1\n2\n>>> x = 1  # replay: skip\n")
    code, out = run_cli(capsys, str(tmp_path / "a.gsh"))
    assert code == 0
    assert out.splitlines()[-1] == "1 passed, 0 failed"


def test_failures_exit_1_with_file_line_statement_and_diff(tmp_path, capsys):
    path = tmp_path / "b.gsh"
    path.write_text(">>> 1 + 1\n2\n>>> 2 + 2\n5\n>>> 3\n3\n")
    code, out = run_cli(capsys, str(path))
    assert code == 1
    assert f"FAILED {path}:3" in out
    assert ">>> 2 + 2" in out and "4 -5" in out and "+4" in out
    assert out.splitlines()[-1] == "2 passed, 1 failed"


def test_several_files_and_folders(tmp_path, capsys):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.gsh").write_text(">>> 1\n1\n")
    (tmp_path / "sub" / "b.md").write_text("# x\n\n```pycon\n>>> 2\n2\n```\n")
    (tmp_path / "sub" / "notes.md").write_text("# no sessions here\n")
    (tmp_path / "c.txt").write_text(">>> 3\n3\n")
    code, out = run_cli(capsys, str(tmp_path / "sub"), str(tmp_path / "c.txt"))
    assert code == 0  # notes.md, found in the folder, holds no session: not a transcript
    assert "notes.md" not in out and out.splitlines()[-1] == "3 passed, 0 failed"
    code, out = run_cli(capsys, str(tmp_path / "sub" / "notes.md"))
    assert code == 1 and "notes.md: no ```pycon" in out


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("open.md", b"```pycon\n>>> 1\n1\n", "never closed"),
        ("unfinished.gsh", b">>> f(1,\n", "never finished"),
        ("prose.gsh", b"no prompts at all\n", "no `>>>` or `In [n]:` prompts"),
        ("junk.gsh", bytes(range(256)) * 100, "binary data"),
        ("latin1.gsh", b">>> '\xe9'\n", "not UTF-8"),
    ],
)
def test_malformed_transcripts_give_a_clear_error(tmp_path, capsys, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    code, out = run_cli(capsys, str(path))
    assert code == 1
    assert out.startswith(f"ERROR {path}")
    assert message in out
    assert "Traceback" not in out
    assert out.splitlines()[-1] == "0 passed, 1 failed"


def test_a_10_mb_transcript(tmp_path, capsys):
    path = tmp_path / "big.gsh"
    path.write_bytes(b">>> 1\n1\n" * (10 * 1024 * 1024 // 8))
    code, out = run_cli(capsys, str(path))
    assert code == 1 and "too large" in out and "Traceback" not in out


def test_missing_file(tmp_path, capsys):
    code, out = run_cli(capsys, str(tmp_path / "nope.gsh"))
    assert code == 1 and "cannot read the file" in out


def test_usage_errors_and_help(capsys):
    assert main([]) == 2
    assert main(["--style", "baroque", "x.gsh"]) == 2
    assert main(["--help"]) == 0
    assert "--update" in capsys.readouterr().out


def test_style_option_overrides_detection(tmp_path, capsys):
    seen = []

    def factory(style, prompt):
        seen.append(style)
        return PythonSession(style, prompt)

    path = tmp_path / "a.gsh"
    path.write_text(">>> 1\n1\n")
    run_cli(capsys, str(path), "--style", "legacy", factory=factory)
    run_cli(capsys, str(path), factory=factory)
    assert seen == ["legacy", "modern"]


def test_update_rewrites_in_place(tmp_path, capsys):
    path = tmp_path / "u.gsh"
    path.write_text(">>> 1 + 1\n3\n>>> 'same'\n'same'\n")
    code, out = run_cli(capsys, str(path), "--update")
    assert code == 0 and "1 statement(s) rewritten" in out and "(1 updated)" in out
    assert path.read_text() == ">>> 1 + 1\n2\n>>> 'same'\n'same'\n"
    code, out = run_cli(capsys, str(path))
    assert code == 0 and out.splitlines()[-1] == "2 passed, 0 failed"


def test_python_dash_m_runs_gradshell(tmp_path):
    path = tmp_path / "m.gsh"
    path.write_text(">>> import torch\n>>> torch.ones(2) * 2\ntensor([2., 2.])\n")
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "gradshell.replay", str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "2 passed, 0 failed"
    assert "\x1b[" not in proc.stdout


def test_legacy_mistake_through_the_cli(capsys):
    code, out = run_cli(capsys, str(DATA / "mistakes_legacy.gsh"), factory=None)
    assert code == 1
    assert "mistakes_legacy.gsh:6" in out and "8 - 27 27" in out
    assert out.splitlines()[-1] == "5 passed, 1 failed"
