"""The teacher's commands: `gradshell learn --export` (a documented JSON report),
`--new` (a lesson drafted from a transcript) and `--check` (every reference solution
replayed in a sandboxed kernel)."""

from __future__ import annotations

import json
import os
import textwrap

from gradshell.learn import cli
from gradshell.learn.drafting import draft_lesson
from gradshell.learn.export import EXPORT_FORMAT
from gradshell.learn.lesson import load_lesson
from gradshell.learn.progress import ProgressStore

TRANSCRIPT = textwrap.dedent(
    """\
    # Gradients add up
    Each backward() adds into .grad.

    >>> import torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> x.sum().backward()
    >>> x.grad
    tensor([1., 1.])

    # A second pass
    >>> y = (x * 3).sum()
    >>> y.backward()
    >>> x.grad
    tensor([4., 4.])
    >>> %explain y
    """
)


def test_export_writes_every_lesson_with_its_status(tmp_path, capsys):
    store = ProgressStore()
    store.load()
    store.record("graph", step="first-node", done="leaf")
    store.record("accumulation", skipped="first-backward", step="second-backward")
    store.record("requires-grad", finished=True, done="factory-argument")
    target = tmp_path / "progress-report.json"
    assert cli.main(["--export", str(target), "--learner", "Ada", "--lang", "en"]) == 0
    assert "Progress written to" in capsys.readouterr().out
    report = json.loads(target.read_text(encoding="utf-8"))
    assert report["format"] == EXPORT_FORMAT and report["version"] == 1
    assert report["learner"] == "Ada" and report["lang"] == "en"
    lessons = {e["id"]: e for e in report["lessons"]}
    assert [e["number"] for e in report["lessons"]] == list(range(1, 11))
    assert lessons["graph"]["status"] == "started"
    assert lessons["graph"]["done"] == ["leaf"]
    assert lessons["graph"]["at"] == {"index": 2, "id": "first-node"}
    assert lessons["accumulation"]["skipped"] == ["first-backward"]
    assert lessons["requires-grad"]["status"] == "finished"
    assert lessons["chain"]["status"] == "new" and lessons["chain"]["updated"] == ""
    assert report["totals"]["finished"] == 1 and report["totals"]["started"] == 2
    assert report["totals"]["done"] == 2 and report["totals"]["skipped"] == 1


def test_export_to_stdout_in_chinese(capsys):
    assert cli.main(["--export", "-", "--lang", "zh"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["lessons"][2]["title"] == "经典的链条：4.5 是怎么来的"
    assert report["learner"] is None


def test_a_drafted_lesson_loads_and_its_checks_follow_the_statements(tmp_path):
    path = tmp_path / "11-add-up.toml"
    path.write_text(draft_lesson(TRANSCRIPT, path="add-up.gsh"), encoding="utf-8")
    lesson = load_lesson(path)
    assert lesson.setup == "import torch"
    assert [s.id for s in lesson.steps] == ["gradients-add-up", "a-second-pass"]
    first, second = lesson.steps
    assert first.text.en == "Each backward() adds into .grad."
    kinds = [(c.kind, c.subject) for c in first.checks]
    assert kinds == [("value", "x"), ("backward_reached", "x"), ("shown", "x.grad")]
    kinds = [(c.kind, c.subject) for c in second.checks]
    assert ("backward_from", "y") in kinds and ("ran", "explain") in kinds
    assert "TODO" in lesson.title.zh and "`x.sum().backward()`" in first.hints[-1].zh


def test_new_then_check_replays_the_draft_in_a_kernel(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "add-up.gsh").write_text(TRANSCRIPT, encoding="utf-8")
    assert cli.main(["--new", "add-up.gsh"]) == 0
    out = capsys.readouterr().out
    drafted = tmp_path / "11-add-up.toml"
    assert drafted.exists() and "gradshell learn --check" in out
    assert cli.main(["--new", "add-up.gsh"]) == 1  # never overwrites
    assert cli.main(["--check", str(drafted)]) == 0
    assert "ok (2 steps, 8 statements replayed)" in capsys.readouterr().out
    # a wrong expected output is reported as a difference
    drafted.write_text(
        drafted.read_text(encoding="utf-8").replace("tensor([4., 4.])", "tensor([5., 5.])"),
        encoding="utf-8",
    )
    assert cli.main(["--check", str(drafted)]) == 1
    out = capsys.readouterr().out
    assert "tensor([5., 5.])" in out and "FAILED" in out


def test_check_replays_every_lesson_of_the_course_in_a_kernel(capsys):
    assert cli.main(["--check"]) == 0
    out = capsys.readouterr().out
    assert out.count(": ok (") == 10


def test_a_transcript_with_nothing_to_check_is_refused(tmp_path, capsys):
    (tmp_path / "t.gsh").write_text(">>> import torch\n>>> 1 + 1\n", encoding="utf-8")
    assert cli.main(["--new", str(tmp_path / "t.gsh"), "--out", str(tmp_path / "x.toml")]) == 1
    assert "nothing in this group of statements can be checked" in capsys.readouterr().err


def test_export_replaces_a_file_only_when_told_and_never_writes_hidden_names(tmp_path, capsys):
    target = tmp_path / "report.json"
    target.write_text("the learner's file\n")
    assert cli.main(["--export", str(target)]) == 1
    assert "exists, so it was left as it is (add --force" in capsys.readouterr().err
    assert target.read_text() == "the learner's file\n"
    assert cli.main(["--export", str(target), "--force"]) == 0
    assert json.loads(target.read_text(encoding="utf-8"))["format"] == EXPORT_FORMAT
    assert os.stat(target).st_mode & 0o111 == 0
    (tmp_path / ".ssh").mkdir()
    for hidden in (".bashrc", ".ssh/authorized_keys", "sub/../.profile"):
        assert cli.main(["--export", str(tmp_path / hidden), "--force"]) == 1
        assert "hidden files and folders" in capsys.readouterr().err
    (tmp_path / "t.gsh").write_text(TRANSCRIPT, encoding="utf-8")
    hook = tmp_path / "a" / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(parents=True)
    assert cli.main(["--new", str(tmp_path / "t.gsh"), "--out", str(hook)]) == 1
    assert "hidden files and folders" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.rglob("*")) == sorted(
        ["report.json", ".ssh", "t.gsh", "a", ".git", "hooks"]
    )


def test_export_asks_at_a_terminal_before_replacing_a_file(tmp_path, monkeypatch):
    from gradshell.learn.teaching import refuse_target

    target = tmp_path / "report.json"
    target.write_text("old")
    asked = []
    for answer, refused in (("n", True), ("y", False)):
        monkeypatch.setattr("builtins.input", lambda q, a=answer: asked.append(q) or a)
        assert (refuse_target(str(target), force=False, interactive=True) is not None) == refused
    assert asked == [f"File `{target}` exists. Overwrite (y/[N])? "] * 2
