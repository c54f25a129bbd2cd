"""Magics and their registry; %save/%load round trips."""

from __future__ import annotations

import os
import re

import pytest

from gradshell.shell import magics
from gradshell.shell.session import Session


def test_help_lists_every_magic_with_one_line(session):
    out = session.run_cell("%help").output
    lines = out.rstrip("\n").split("\n")
    names = [line.split()[0] for line in lines]
    for name in (
        "%help",
        "%style",
        "%prompt",
        "%reset",
        "%who",
        "%history",
        "%save",
        "%load",
        "%time",
    ):
        assert name in names
    assert len(lines) == len(magics.magic_names())


def test_register_magic_adds_a_magic(session):
    def hello(s, arg):
        s.show_visual(f"[visual {arg}]")
        return f"hello {arg}"

    magics.register_magic("hello", hello, "say hello")
    try:
        result = session.run_cell("%hello world")
        assert result.output == "hello world\n"
        assert result.visual == "[visual world]\n"
        assert "%hello" in session.run_cell("%help").output
    finally:
        magics._MAGICS.pop("hello")


def test_unknown_magic_and_usage_errors(session):
    assert (
        session.run_cell("%nope").output
        == "gradshell: unknown magic %nope (type %help for the list)\n"
    )
    assert session.run_cell("%style purple").output == "gradshell: usage: %style modern|legacy\n"
    assert session.run_cell("%style").output == "print style: modern\n"
    assert session.run_cell("%prompt").output == "prompt style: python\n"


def test_broken_magic_does_not_end_the_session(session):
    magics.register_magic("broken", lambda s, a: 1 / 0, "always fails")
    try:
        result = session.run_cell("%broken")
        assert "gradshell: %broken failed: division by zero" in result.output
        assert session.run_cell("1").output == "1\n"
    finally:
        magics._MAGICS.pop("broken")


def test_prompt_magic(session):
    session.run_cell("%prompt ipython")
    assert session.run_cell("1 + 1").output == "Out[2]: 2\n"
    assert session.ps1() == "In [3]: "
    session.run_cell("%prompt python")
    assert session.run_cell("2").output == "2\n"


def test_reset(session):
    session.run_cell("x = 1")
    session.run_cell("%reset")
    assert "NameError" in session.run_cell("x").output
    assert session.run_cell("1 + 1").output == "2\n"


def test_who_shows_shape_dtype_requires_grad(session):
    session.run_cell("import torch\nx = torch.ones(2, 3, requires_grad=True)\nn = 5")
    out = session.run_cell("%who").output
    lines = out.splitlines()
    assert lines[0].split() == ["Variable", "Type", "Shape", "Dtype", "requires_grad"]
    row = next(line for line in lines if line.startswith("x "))
    assert row.split() == ["x", "Tensor", "[2,", "3]", "torch.float32", "True"]
    assert any(line.split() == ["n", "int"] for line in lines)
    assert any(line.split() == ["torch", "module"] for line in lines)


def test_history(session):
    session.run_cell("a = 1")
    session.run_cell("for i in range(2):\n    a += i\n")
    out = session.run_cell("%history").output
    assert "   1: a = 1\n   2: for i in range(2):\n          a += i\n" in out


def test_time_runs_the_statement(session):
    out = session.run_cell("%time x = sum(range(1000))\n").output
    assert re.search(r"CPU times: user .+, sys: .+, total: .+\nWall time: .+", out)
    assert session.run_cell("x").output == "499500\n"
    out = session.run_cell("%time 6 * 7").output
    assert out.startswith("42\nCPU times")


def test_time_reports_errors(session):
    result = session.run_cell("%time 1 / 0")
    assert isinstance(result.error, ZeroDivisionError)
    assert "ZeroDivisionError" in result.output


def test_save_then_replay_gives_the_same_outputs(session, tmp_path):
    session.run_cell("import torch")
    session.run_cell("x = torch.ones(2, 2, requires_grad=True)")
    session.run_cell("y = x + 2")
    session.run_cell("y")
    session.run_cell("%who")  # not part of the transcript
    session.run_cell("%style legacy")
    session.run_cell("y")
    session.run_cell("for i in range(2):\n    print(i)\n")
    session.run_cell("1 / 0")
    path = tmp_path / "s.gsh"
    out = session.run_cell(f"%save {path}").output
    assert out == f"saved 8 inputs to {path}\n"
    text = path.read_text()
    assert ">>> %who" not in text
    assert "# replay: style=modern prompt=python\n" in text
    assert "[torch.FloatTensor of size 2x2]\n<BLANKLINE>\n" in text
    assert ">>> for i in range(2):\n...     print(i)\n...\n0\n1\n" in text
    assert ">>> y\ntensor([[3., 3.],\n        [3., 3.]], grad_fn=<AddBackward0>)\n" in text

    # the transcript's inputs, replayed in a fresh session, print the same outputs
    from gradshell.shell.inputsplit import transcript_inputs

    fresh = Session(viz=False)
    outputs = [fresh.run_cell(src).output for src in transcript_inputs(text)]
    assert len(outputs) == 8
    expected = [e.output for e in session.history if e.record and e.source.strip()][: len(outputs)]
    assert outputs == expected


def test_saved_transcript_replays_with_gradshell_replay(session, tmp_path):
    replay_cli = pytest.importorskip("gradshell.replay.cli")
    for source in [
        "import torch",
        "x = torch.ones(2, requires_grad=True)",
        "x * 2",
        "%style legacy",
        "x * 2",
        "print('a\\n\\nb')",
    ]:
        session.run_cell(source)
    path = tmp_path / "saved.gsh"
    session.run_cell(f"%save {path}")
    assert replay_cli.main([str(path)]) == 0


def test_load_runs_a_script_with_echo(session, tmp_path):
    path = tmp_path / "prog.py"
    path.write_text("a = 2\n\ndef f(v):\n    w = v * 3\n\n    return w\n\nf(a)\nprint('done')\n")
    result = session.run_cell(f"%load {path}")
    assert result.output == (
        ">>> a = 2\n>>> def f(v):\n...     w = v * 3\n...\n...     return w\n...\n>>> f(a)\n6\n"
        ">>> print('done')\ndone\n"
    )
    assert session.run_cell("a").output == "2\n"


def test_load_runs_a_transcripts_inputs(session, tmp_path):
    path = tmp_path / "t.txt"
    path.write_text(">>> x = 3\n>>> x * 2\n999\n")
    result = session.run_cell(f"%load {path}")
    assert result.output == ">>> x = 3\n>>> x * 2\n6\n"


def test_load_missing_file(session):
    out = session.run_cell("%load nonexistent/file.py").output
    assert out.startswith("gradshell: cannot read nonexistent/file.py: No such file")


def test_file_magics_stay_inside_the_session_directory(session, tmp_path):
    outside = tmp_path.parent / "elsewhere.gsh"
    for line in (f"%save {outside}", "%save ../up.gsh", "%load /etc/passwd", "%save ~/x.gsh"):
        out = session.run_cell(line).output
        assert "outside the session directory" in out and "--allow-path" in out, line
    assert not outside.exists() and not (tmp_path.parent / "up.gsh").exists()
    assert session.run_cell("%save inside.gsh").output.startswith("saved ")
    assert (tmp_path / "inside.gsh").exists()


def test_symlinks_out_of_the_session_directory_are_refused(session, tmp_path):
    target = tmp_path.parent / "target.txt"
    target.write_text("1 + 1\n")
    (tmp_path / "link.py").symlink_to(target)
    out = session.run_cell("%load link.py").output
    assert "outside the session directory" in out
    assert "2" not in out.splitlines()  # the linked file's code did not run


def test_allow_path_widens_the_policy(tmp_path):
    from gradshell.shell.files import LocalFiles, PathPolicy

    extra = tmp_path.parent / f"{tmp_path.name}-extra"
    extra.mkdir()
    s = Session(viz=False, files=LocalFiles(PathPolicy(tmp_path, [extra])))
    assert s.run_cell(f"%save {extra / 'a.gsh'}").output.startswith("saved ")


def test_a_magic_has_the_statement_time_limit(tmp_path):
    s = Session(viz=True)
    s.run_cell("import torch\nx = torch.ones(1, requires_grad=True)\ny = x")
    s.run_cell("for i in range(20000):\n    y = y * 1\n")
    s.time_limit = 0.5  # set after the imports, which a loaded machine makes slow
    out = s.run_cell("%explain y").output  # takes seconds on a 20,000-node chain
    assert out == "gradshell: stopped after 0.5 s, the time limit for one statement\n"
    assert s.run_cell("1 + 1").output == "2\n"


_UNITS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}


def _seconds(text: str) -> float:
    value, unit = text.split()
    return float(value) * _UNITS[unit]


def test_time_totals_add_up(session):
    out = session.run_cell("%time x = sum(i * i for i in range(200000))").output
    m = re.search(r"user (.+?), sys: (.+?), total: (.+?)\n", out)
    assert m, out
    user, system, total = (_seconds(g) for g in m.groups())
    assert user > 0  # measured to the microsecond, not in 10 ms ticks
    assert total == pytest.approx(user + system, rel=0.01, abs=2e-6)


def test_who_with_names_or_types_lists_only_those(session):
    session.run_cell("import torch")
    session.run_cell("x = torch.ones(2, requires_grad=True)")
    session.run_cell("y = 3")
    out = session.run_cell("%who x").output
    names = [line.split()[0] for line in out.splitlines()[2:]]
    assert names == ["x"]
    out = session.run_cell("%who int").output
    assert [line.split()[0] for line in out.splitlines()[2:]] == ["y"]
    assert "No variables match" in session.run_cell("%who nothing_here").output


def test_save_never_follows_a_symlink_planted_after_the_check(tmp_path, monkeypatch):
    from gradshell.shell.files import FileAccessError, LocalFiles, PathPolicy

    outside = tmp_path.parent / f"{tmp_path.name}-victim.txt"
    outside.write_text("untouched")
    files = LocalFiles(PathPolicy(tmp_path))
    real_resolve = files.policy.resolve

    def resolve_then_swap(path):
        target = real_resolve(path)  # checked while it is a plain name ...
        (tmp_path / "swap.gsh").symlink_to(outside)  # ... then swapped for a symlink
        return target

    monkeypatch.setattr(files.policy, "resolve", resolve_then_swap)
    try:
        files.write_text("swap.gsh", "evil")
    except FileAccessError:
        pass
    assert outside.read_text() == "untouched"


# --- only what is gradshell's: hidden names, other people's files ----------------------

HIDDEN_LINES = [
    "%save .bashrc",
    "%save .ssh/authorized_keys",
    "%save a/.git/hooks/pre-commit",
    "%save sub/../.profile",
    "%save link/authorized_keys",
    "%save --force .bashrc",
    "%load .bashrc",
    "%load link/authorized_keys",
    "%graph y --dot .bashrc",
    "%graph y --dot a/.git/hooks/pre-commit --force",
    "%graph y --svg sub/../.profile",
]


@pytest.mark.parametrize("line", HIDDEN_LINES)
def test_file_magics_refuse_hidden_names(tmp_path, line):
    (tmp_path / ".bashrc").write_text("echo learner\n")
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "authorized_keys").write_text("ssh-ed25519 AAAA learner\n")
    (tmp_path / "a" / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / "sub").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / ".ssh")
    s = Session(viz=True)
    s.run_cell("import torch\nx = torch.ones(1, requires_grad=True)\ny = x * 2")
    out = s.run_cell(line).output
    assert "hidden files and folders (names starting with '.') are off limits" in out, out
    assert (tmp_path / ".bashrc").read_text() == "echo learner\n"
    assert (tmp_path / ".ssh" / "authorized_keys").read_text() == "ssh-ed25519 AAAA learner\n"
    assert not (tmp_path / ".profile").exists()
    assert os.listdir(tmp_path / "a" / ".git" / "hooks") == []
    assert "learner" not in out  # %load ran nothing from the file


def test_save_writes_its_own_file_again_but_asks_for_force_over_the_learners(session, tmp_path):
    assert session.run_cell("%save notes.gsh").output == "saved 0 inputs to notes.gsh\n"
    session.run_cell("x = 1")
    assert session.run_cell("%save notes.gsh").output == "saved 1 inputs to notes.gsh\n"
    assert ">>> x = 1" in (tmp_path / "notes.gsh").read_text()

    mine = tmp_path / "mine.py"
    mine.write_text("the learner's notes\n")
    assert session.run_cell("%save mine.py").output == (
        "gradshell: mine.py exists and gradshell did not write it in this session, so it "
        "was left as it is (add --force to the command to overwrite it)\n"
    )
    assert mine.read_text() == "the learner's notes\n"
    assert session.run_cell("%save --force mine.py").output == "saved 1 inputs to mine.py\n"
    mine.write_text("edited again\n")
    assert session.run_cell("%save mine.py -f").output == "saved 1 inputs to mine.py\n"
    assert ">>> x = 1" in mine.read_text()
    assert os.stat(mine).st_mode & 0o111 == 0


@pytest.mark.parametrize(("answer", "written"), [("y", True), ("n", False), ("", False)])
def test_save_asks_at_a_terminal_before_replacing_a_file(tmp_path, answer, written):
    (tmp_path / "mine.py").write_text("old\n")
    s = Session(viz=False)
    s.interactive = True
    asked = []

    def read_input(prompt: str) -> str:
        asked.append(prompt)
        return answer

    s.read_input = read_input  # type: ignore[method-assign]
    out = s.run_cell("%save mine.py").output
    assert asked == [
        "File `mine.py` exists and gradshell did not write it in this session. Overwrite (y/[N])? "
    ]
    assert out.startswith("saved ") == written
    assert ((tmp_path / "mine.py").read_text() == "old\n") != written


def test_graph_export_asks_for_force_over_a_file_it_did_not_write(tmp_path):
    s = Session(viz=True)
    s.run_cell("import torch\nx = torch.ones(1, requires_grad=True)\ny = x * 2")
    (tmp_path / "g.dot").write_text("the learner's graph\n")
    out = s.run_cell("%graph y --dot g.dot").output
    assert "g.dot exists and gradshell did not write it" in out
    assert (tmp_path / "g.dot").read_text() == "the learner's graph\n"
    assert s.run_cell("%graph y --dot g.dot --force").output.startswith("wrote the graph to g.dot")
    assert s.run_cell("%graph y --dot g.dot").output.startswith("wrote the graph to g.dot")


def test_take_force_keeps_a_file_name_with_spaces_whole():
    assert magics.take_force("--force my notes.py") == (True, "my notes.py")
    assert magics.take_force("my notes.py -f") == (True, "my notes.py")
    assert magics.take_force("my notes.py") == (False, "my notes.py")
    assert magics.take_force("--force") == (True, "")
