"""Tests of the tester: transcripts with deliberate mistakes, replayed in gradshell.

Every statement marked WRONG must fail, every other must pass, and each report must
name the statement's line, the first wrong expected line, and show the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gradshell.replay.parser import read_transcript
from gradshell.replay.report import example_report, render, session_report
from gradshell.replay.runner import run_transcript

DATA = Path(__file__).parent / "data"


def line_of(path: Path, text: str) -> int:
    """1-based number of the only line of `path` containing `text`."""
    lines = [n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line]
    assert len(lines) == 1, (text, lines)
    return lines[0]


def replay(name: str):
    path = DATA / name
    (result,) = run_transcript(read_transcript(path))
    reports = {f.example.line: render([example_report(str(path), f)]) for f in result.failures}
    return path, result, reports


def test_exactly_the_wrong_statements_fail():
    path, result, _ = replay("mistakes_modern.gsh")
    wrong = {n for n, line in enumerate(path.read_text().splitlines(), 1) if "# WRONG" in line}
    assert {f.example.line for f in result.failures} == wrong
    assert result.passed == len(result.examples) - len(wrong)


@pytest.mark.parametrize(
    ("statement", "first_wrong", "minus", "plus"),
    [
        (
            "y  # WRONG: one value",
            "[3., 4.]]",
            "-        [3., 4.]], grad_fn=<AddBackward0>)",
            "+        [3., 3.]], grad_fn=<AddBackward0>)",
        ),
        (
            "y.grad_fn  # WRONG",
            "<MulBackward0",
            "-<MulBackward0 object at 0x…>",
            "+<AddBackward0 object at 0x…>",
        ),
        (
            "x.grad.sum().backward()",
            "RuntimeError: grad can be implicitly",
            "-RuntimeError: grad can be implicitly created only for scalar outputs",
            "+RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
        ),
    ],
)
def test_report_names_the_line_and_shows_the_diff(statement, first_wrong, minus, plus):
    path, _, reports = replay("mistakes_modern.gsh")
    line = line_of(path, statement)
    wrong = line_of(path, first_wrong)
    report = reports[line]
    assert report.startswith(f"FAILED {path}:{line}")
    assert f"first difference at line {wrong}" in report
    assert f"{wrong} {minus}" in report
    assert any(row.strip() == plus for row in report.splitlines())
    assert ">>> " + statement.split("  #")[0] in report


def test_unexpected_output_is_reported_at_the_line_after_the_statement():
    path, _, reports = replay("mistakes_modern.gsh")
    line = line_of(path, "x.requires_grad  # WRONG")
    report = reports[line]
    assert f"first difference at line {line + 1}" in report
    assert "expected no output" in report
    assert any(row.strip() == "+True" for row in report.splitlines())


def test_missing_output_line_is_reported_after_the_last_expected_line():
    path, _, reports = replay("mistakes_modern.gsh")
    line = line_of(path, 'print("two')
    report = reports[line]
    assert f"first difference at line {line + 2}" in report
    assert any(row.strip() == "+lines" for row in report.splitlines())
    assert f"{line + 1}  two" in report


def test_legacy_spacing_mistake():
    path, result, reports = replay("mistakes_legacy.gsh")
    assert result.style == "legacy"
    (failure,) = result.failures
    line = line_of(path, "z  # WRONG")
    wrong = line + 2
    report = reports[line]
    assert f"first difference at line {wrong}" in report
    assert f"{wrong} - 27 27" in report
    assert [row.strip() for row in report.splitlines()].count("+ 27  27") == 2
    assert "[torch.FloatTensor of size 2x2]" in report  # brackets survive rich


def test_session_report_lists_every_failure_once():
    path, result, _ = replay("mistakes_modern.gsh")
    text = render(session_report(result))
    assert text.count("FAILED ") == len(result.failures) == 5
