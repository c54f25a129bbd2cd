"""`gradshell learn`: --list, --lang (default from the locale), --reset, unknown names,
and a whole lesson from a pipe."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from lessonkit import lesson

from gradshell.learn import cli
from gradshell.learn.i18n import default_lang
from gradshell.learn.progress import ProgressStore, default_path
from gradshell.shell.cli import main as gradshell_main


def test_list_shows_every_lesson_with_progress(capsys):
    store = ProgressStore()
    store.load()
    store.record("graph", step="first-node", done="leaf")
    assert cli.main(["--list", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert out.count("│") >= 20
    assert "The classic chain: where 4.5 comes from" in out
    assert "1/7 steps, at step 2" in out
    assert "not started" in out


def test_list_in_chinese(capsys):
    assert cli.main(["--list", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "经典的链条" in out and "未开始" in out


def test_the_gradshell_command_dispatches_to_learn(capsys):
    assert gradshell_main(["learn", "--list", "--lang", "en"]) == 0
    assert "Reading old code" in capsys.readouterr().out


def test_unknown_lessons_are_usage_errors(capsys):
    assert cli.main(["no-such-lesson", "--lang", "en"]) == 2
    assert "there is no lesson 'no-such-lesson'" in capsys.readouterr().err
    assert cli.main(["--reset", "nope", "--lang", "en"]) == 2
    assert cli.main(["--lang", "fr"]) == 2


def test_reset_one_lesson_and_all(capsys):
    store = ProgressStore()
    store.load()
    store.record("graph", step="first-node")
    store.record("chain", step="build")
    assert cli.main(["--reset", "2", "--lang", "en"]) == 0
    assert "Progress of The graph" in capsys.readouterr().out
    assert set(ProgressStore().load().lessons) == {"chain"}
    assert cli.main(["--reset", "all", "--lang", "en"]) == 0
    assert ProgressStore().load().lessons == {}


@pytest.mark.parametrize(
    ("env", "lang"),
    [
        ({"LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LC_ALL": "zh_TW.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),
        ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"),
        ({"LANGUAGE": "zh_CN:en", "LANG": "en_US.UTF-8"}, "zh"),
        ({"LC_MESSAGES": "zh_HK.UTF-8"}, "zh"),
        ({}, "en"),
    ],
)
def test_the_default_language_comes_from_the_locale(env, lang):
    assert default_lang(env) == lang


def _solution_lines(name: str) -> list[str]:
    """What a learner types to go through a lesson: predictions, then the reference code
    (blocks closed by an empty line)."""
    lines = []
    for step in lesson(name).steps:
        if step.predict is not None:
            lines.append("")
        for source in step.reference_code():
            lines.extend(source.split("\n"))
            if "\n" in source:
                lines.append("")
    return lines


def test_a_whole_lesson_from_a_pipe(tmp_path):
    text = "\n".join(_solution_lines("chain-rule")) + "\n"
    env = dict(os.environ, GRADSHELL_DATA_DIR=str(tmp_path), NO_COLOR="1")
    proc = subprocess.run(
        [sys.executable, "-m", "gradshell", "learn", "8", "--lang", "en"],
        input=text,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "(8.5) >>> for t in (x1, w1, w2):" in out  # inputs echoed after their prompts
    assert "★ Lesson 8 complete" in out
    assert "Progress saved" in out
    saved = ProgressStore(tmp_path / "learn" / "progress.json").load()
    assert saved.lessons["chain-rule"].finished


def test_progress_goes_to_the_data_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADSHELL_DATA_DIR", str(tmp_path / "elsewhere"))
    assert default_path() == tmp_path / "elsewhere" / "learn" / "progress.json"


def test_the_menu_from_a_pipe_opens_a_lesson_and_leaves(tmp_path):
    env = dict(os.environ, GRADSHELL_DATA_DIR=str(tmp_path), NO_COLOR="1", LANG="zh_CN.UTF-8")
    env.pop("LC_ALL", None)
    env.pop("LANGUAGE", None)
    proc = subprocess.run(
        [sys.executable, "-m", "gradshell", "learn"],
        input="9\nbye\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "gradshell 课程" in out and "learn › 9" in out  # the locale chose Chinese
    assert "第 9 课：读懂老代码" in out and "(9.1) >>> bye" in out
    assert "进度已保存" in out
    saved = ProgressStore(tmp_path / "learn" / "progress.json").load()
    assert saved.last == "old-code" and saved.lessons["old-code"].step == "legacy-style"


def _teachers_lesson(folder, name="11-my-chain.toml"):
    """A teacher's lesson: the chain lesson's text under a number of its own."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(open(lesson("chain").path, encoding="utf-8").read(), encoding="utf-8")
    return path


def test_a_lesson_file_runs_with_the_course_around_it(tmp_path):
    """`gradshell learn 11-my-chain.toml` opens the teacher's file (the kernel reads it
    where it is), and the built-in course is still there."""
    path = _teachers_lesson(tmp_path / "course")
    env = dict(os.environ, GRADSHELL_DATA_DIR=str(tmp_path), NO_COLOR="1")
    proc = subprocess.run(
        [sys.executable, "-m", "gradshell", "learn", str(path), "--lang", "en"],
        input="bye\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Lesson 11: The classic chain" in proc.stdout


def test_a_teachers_folder_adds_lessons_beside_the_course(tmp_path, capsys, monkeypatch):
    _teachers_lesson(tmp_path / "course")
    assert cli.main(["--lessons", str(tmp_path / "course"), "--list", "--lang", "en"]) == 0
    listed = capsys.readouterr().out
    assert " 11 │" in listed and " 10 │" in listed
    monkeypatch.setenv("GRADSHELL_LESSON_PATH", str(tmp_path / "course"))
    assert cli.main(["--list", "--lang", "en"]) == 0
    assert " 11 │" in capsys.readouterr().out


def test_a_teachers_lesson_that_takes_a_courses_number_is_named(tmp_path, capsys):
    _teachers_lesson(tmp_path / "course", "03-again.toml")
    assert cli.main(["--lessons", str(tmp_path / "course"), "--list", "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert "03-again.toml" in err and "lesson number 3 is also" in err


def test_what_learner_code_prints_in_a_lesson_drives_nothing(tmp_path):
    from support.terminal_attacks import ATTACKS, drives

    env = dict(os.environ, GRADSHELL_DATA_DIR=str(tmp_path), NO_COLOR="1")
    typed = "\n".join(attack.source for attack in ATTACKS) + "\nbye\n"
    proc = subprocess.run(
        [sys.executable, "-m", "gradshell", "learn", "1", "--lang", "en"],
        input=typed,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert drives(proc.stdout) == []
    for attack in ATTACKS:
        assert attack.expected in proc.stdout and attack.forbidden not in proc.stdout
