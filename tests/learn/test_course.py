"""The course: every lesson's reference solutions replay through the replay engine with
the output written in the lesson, and leave the state each step's checks want; both
languages are present and really are two languages; broken lessons are refused."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from lessonkit import course

from gradshell.learn.authoring import verify_lesson
from gradshell.learn.lesson import LessonError, lessons_dir, load_course, load_lesson
from gradshell.replay.parser import read_transcript

CJK = re.compile(r"[\u4e00-\u9fff]")

EXPECTED = [
    "requires-grad",
    "graph",
    "chain",
    "gradient-argument",
    "accumulation",
    "stopping",
    "retain-graph",
    "chain-rule",
    "old-code",
    "fit-a-line",
]


def test_the_course_has_the_ten_lessons_in_order():
    lessons = course()
    assert [lesson.id for lesson in lessons] == EXPECTED
    assert [lesson.number for lesson in lessons] == list(range(1, 11))


def test_every_seed_is_taught():
    seeds = {s for lesson in course() for s in lesson.seeds}
    assert seeds == {"000", "001", "002", "003"}


@pytest.mark.parametrize("name", EXPECTED)
def test_reference_solutions_replay_and_pass_their_checks(name):
    lesson = next(lesson for lesson in course() if lesson.id == name)
    report = verify_lesson(lesson, "en")
    assert report.ok, report.describe()
    assert len(report.steps) == len(lesson.steps)


def test_reference_solutions_pass_in_chinese_too():
    lesson = next(lesson for lesson in course() if lesson.id == "accumulation")
    assert verify_lesson(lesson, "zh").ok


def _texts(lesson):
    yield "title", lesson.title
    yield "summary", lesson.summary
    if lesson.recap is not None:
        yield "recap", lesson.recap
    for step in lesson.steps:
        yield f"{step.id}.title", step.title
        yield f"{step.id}.text", step.text
        yield f"{step.id}.task", step.task
        if step.done is not None:
            yield f"{step.id}.done", step.done
        if step.predict is not None:
            yield f"{step.id}.question", step.predict.question
        for k, hint in enumerate(step.hints):
            if CJK.search(hint.zh) or CJK.search(hint.en):
                yield f"{step.id}.hint{k}", hint


@pytest.mark.parametrize("name", EXPECTED)
def test_both_languages_are_written_not_copied(name):
    lesson = next(lesson for lesson in course() if lesson.id == name)
    for where, text in _texts(lesson):
        assert not CJK.search(text.en), f"{name} {where}: Chinese in the English text"
        assert CJK.search(text.zh), f"{name} {where}: no Chinese in the Chinese text"
        assert text.en != text.zh


SOURCE_NAMES = re.compile(r"\bseeds? \d{3}|\bseeds \d{3}|种子教程|\bthe seed\b", re.I)


@pytest.mark.parametrize("name", EXPECTED)
def test_lesson_text_names_tutorial_ideas_not_our_source_files(name):
    lesson = next(lesson for lesson in course() if lesson.id == name)
    shown = [("title", lesson.title), *_texts(lesson)]
    shown += [(f"{s.id}.hint{k}", h) for s in lesson.steps for k, h in enumerate(s.hints)]
    for where, text in shown:
        for lang in ("en", "zh"):
            found = SOURCE_NAMES.search(text.get(lang))
            assert found is None, f"{name} {where} ({lang}) cites {found.group(0)!r}"


def test_every_step_has_hints_that_end_in_the_answer():
    for lesson in course():
        for step in lesson.steps:
            assert len(step.hints) >= 2, (lesson.id, step.id)
            code = [src for src in step.reference_code() if not src.startswith("%")]
            last = step.hints[-1].en
            # the last hint names at least one line of the reference solution (or its shape)
            assert any(line.split("(")[0].strip() in last for line in code) or "%" in last, (
                lesson.id,
                step.id,
            )


def test_seed_003_erratum_is_stated():
    lesson = next(lesson for lesson in course() if lesson.id == "chain-rule")
    step = lesson.steps[lesson.step_index("seed-erratum")]
    assert "-22" in step.text.en and "−26" in step.text.en
    assert "−30" in step.text.zh and "-22" in step.text.zh


def test_lessons_folder_holds_no_other_transcripts():
    """The replay plugin collects Markdown under lessons/: the README has no sessions."""
    folder = lessons_dir()
    for md in folder.glob("*.md"):
        assert read_transcript(md).sessions == []
    assert not list(folder.glob("*.gsh"))


# --- broken lessons are refused, and a wrong reference fails ------------------------------

GOOD = """
format = 1
setup = "import torch"
title.en = "T"
title.zh = "标题"
summary.en = "S"
summary.zh = "摘要"

[[steps]]
id = "one"
title.en = "One"
title.zh = "一"
text.en = "Text."
text.zh = "正文。"
task.en = "Do it."
task.zh = "做吧。"
hints.en = ["h1", "h2"]
hints.zh = ["提示一", "提示二"]
solution = '''
>>> x = torch.ones(2, requires_grad=True)
>>> x.sum().backward()
>>> x.grad
tensor([1., 1.])
'''
[[steps.checks]]
tensor = "x"
grad = [1.0, 1.0]
"""


def _write(tmp_path: Path, text: str, name: str = "01-demo.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_good_lesson_verifies(tmp_path):
    assert verify_lesson(load_lesson(_write(tmp_path, GOOD))).ok


def test_a_wrong_expected_output_fails(tmp_path):
    path = _write(tmp_path, GOOD.replace("tensor([1., 1.])", "tensor([2., 2.])"))
    report = verify_lesson(load_lesson(path))
    assert not report.ok
    assert "tensor([2., 2.])" in report.describe()


def test_a_reference_that_fails_its_check_fails(tmp_path):
    path = _write(tmp_path, GOOD.replace("grad = [1.0, 1.0]", "grad = [3.0, 3.0]"))
    report = verify_lesson(load_lesson(path))
    assert not report.ok
    assert "x.grad holds [1, 1], which is not what the task's backward() gives" in report.describe()


def test_a_noisy_setup_fails(tmp_path):
    path = _write(
        tmp_path, GOOD.replace('setup = "import torch"', 'setup = "import torch\\nprint(1)"')
    )
    report = verify_lesson(load_lesson(path))
    assert not report.ok and "setup" in report.describe()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('title.zh = "标题"\n', ""), "title needs exactly title.en and title.zh"),
        (('hints.zh = ["提示一", "提示二"]', 'hints.zh = ["提示一"]'), "same, non-zero length"),
        (('tensor = "x"', 'tensor = "x"\ncolour = "red"'), "do not take colour"),
        (('tensor = "x"', 'sensor = "x"'), "must name exactly one of"),
        ((">>> x.grad\n", "x.grad\n"), None),
        (("format = 1", "format = 2"), "format 2 is not one this gradshell reads"),
        (('id = "one"', 'id = "One Step"'), "lower-case words"),
        (("grad = [1.0, 1.0]", 'grad = "ones"'), "number or a (nested) list"),
        (('tensor = "x"\ngrad = [1.0, 1.0]', 'true = "x.grad is None"'), "needs a message"),
    ],
)
def test_malformed_lessons_are_refused_with_a_reason(tmp_path, change, message):
    old, new = change
    assert old in GOOD
    path = _write(tmp_path, GOOD.replace(old, new, 1))
    if message is None:  # still a valid lesson: its output simply differs
        assert not verify_lesson(load_lesson(path)).ok
        return
    with pytest.raises(LessonError, match=re.escape(message)):
        load_lesson(path)


def test_bad_file_names_and_toml_are_refused(tmp_path):
    with pytest.raises(LessonError, match="NN-name.toml"):
        load_lesson(_write(tmp_path, GOOD, "demo.toml"))
    with pytest.raises(LessonError, match="not valid TOML"):
        load_lesson(_write(tmp_path, "format = = 1", "02-bad.toml"))


def test_duplicate_numbers_are_refused(tmp_path):
    _write(tmp_path, GOOD, "01-a.toml")
    _write(tmp_path, GOOD, "01-b.toml")
    with pytest.raises(LessonError, match="lesson number 1"):
        load_course(tmp_path)
