"""The pytest plugin: collection from configured folders, reports, robustness."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

PASSING = ">>> import torch\n>>> torch.ones(2) + 1\ntensor([2., 2.])\n"
FAILING = ">>> import torch\n>>> torch.ones(2) + 1\ntensor([2., 3.])\n"


def configure(pytester: pytest.Pytester, folders: str, testpaths: str = "") -> None:
    extra = f"testpaths = {testpaths}\n" if testpaths else ""
    pytester.makeini(f"[pytest]\ngradshell_transcripts =\n    {folders}\n{extra}")


def test_sessions_become_items_with_the_replay_report(pytester):
    configure(pytester, "transcripts")
    pytester.mkdir("transcripts")
    pytester.path.joinpath("transcripts", "a.gsh").write_text(
        "# replay: session=good\n" + PASSING + "\n# replay: session=bad\n" + FAILING
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    lines = [line.rstrip() for line in result.stdout.lines]
    at = lines.index('FAILED transcripts/a.gsh:8  (session "bad", modern style)')
    assert lines[at + 1 : at + 7] == [
        "    >>> torch.ones(2) + 1",
        "  first difference at line 9",
        "  --- expected",
        "  +++ got",
        "  9 -tensor([2., 3.])",
        "    +tensor([2., 2.])",
    ]
    assert "\x1b[" not in result.stdout.str()


def test_markdown_lessons_and_ignored_files(pytester):
    configure(pytester, "lessons")
    lessons = pytester.mkdir("lessons")
    (lessons / "lesson.md").write_text("# Lesson\n\n```pycon\n" + PASSING + "```\n")
    (lessons / "readme.md").write_text("# Just prose\n\n```python\nx = 1\n```\n")
    (lessons / "notes.gsh").write_text("prose, no prompts\n")
    (lessons / "other.txt").write_text(FAILING)
    outside = pytester.mkdir("elsewhere")
    (outside / "x.gsh").write_text(FAILING)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "lessons", "elsewhere")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*notes.gsh: no *prompts: not a transcript; not collected*"])


def test_missing_and_empty_folders_are_fine(pytester):
    configure(pytester, "missing\n    empty")
    pytester.mkdir("empty")
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert result.ret == 0


def test_no_configuration_collects_nothing(pytester):
    pytester.path.joinpath("a.gsh").write_text(FAILING)
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_unreadable_transcripts_fail_alone_with_the_reason(pytester):
    configure(pytester, "t")
    folder = pytester.mkdir("t")
    (folder / "open.md").write_text("```pycon\n>>> 1\n1\n")
    (folder / "junk.gsh").write_bytes(bytes(range(256)))
    (folder / "good.gsh").write_text(PASSING)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines_random(
        [
            "*cannot replay: t/open.md:1: ```pycon code block opened here is never closed*",
            "*cannot replay: t/junk.gsh:1: binary data*",
        ]
    )


def test_configured_folders_outside_testpaths_run_with_plain_pytest(pytester):
    configure(pytester, "lessons", testpaths="tests")
    pytester.mkdir("tests")
    pytester.path.joinpath("tests", "test_x.py").write_text("def test_x():\n    pass\n")
    pytester.mkdir("lessons")
    pytester.path.joinpath("lessons", "l.gsh").write_text(PASSING)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    only_tests = pytester.runpytest_subprocess("-p", "no:cacheprovider", "tests")
    only_tests.assert_outcomes(passed=1)


def test_style_option_and_strict_xfail_marks(pytester):
    configure(pytester, "t")
    pytester.mkdir("t")
    pytester.path.joinpath("t", "a.gsh").write_text(PASSING)
    pytester.path.joinpath("t", "conftest.py").write_text(
        "import pytest\n"
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n"
        "        item.add_marker(pytest.mark.xfail(strict=True, reason='legacy only'))\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--gradshell-style", "legacy")
    result.assert_outcomes(xfailed=1)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)  # strict: an unexpected pass fails
