"""The failure report (colour rules, rich markup safety) and `--update` rewriting."""

from __future__ import annotations

from replay_pysession import PythonSession

from gradshell.replay.parser import parse_transcript
from gradshell.replay.report import render, session_report, summary
from gradshell.replay.runner import run_transcript
from gradshell.replay.update import expected_lines, rewrite


def failing_result(text=">>> print('[bold]x[/bold]  [torch.FloatTensor of size 1]')\nnope\n"):
    (result,) = run_transcript(parse_transcript(text, "t.gsh"), factory=PythonSession)
    return result


def test_plain_report_has_no_escape_codes_and_keeps_brackets():
    text = render(session_report(failing_result()), color=False)
    assert "\x1b[" not in text
    assert "+[bold]x[/bold]  [torch.FloatTensor of size 1]" in text
    assert text.startswith("FAILED t.gsh:1")


def test_colour_when_asked_and_never_with_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert "\x1b[" in render(session_report(failing_result()), color=True)
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in render(session_report(failing_result()), color=True)


def test_long_unchanged_runs_are_cut_to_context():
    want = "\n".join(str(i) for i in range(20))
    text = f">>> for i in range(20): print(i if i != 15 else 'x')\n{want}\n"
    report = render(session_report(failing_result(text)))
    rows = [row.strip() for row in report.splitlines()]
    assert "⋯" in rows
    assert ["14  12", "15  13", "16  14", "17 -15", "+x", "18  16"] == rows[6:12]
    assert "2  0" not in rows and "13  11" not in rows  # far from the change


def test_session_error_report():
    def broken(style, prompt):
        raise RuntimeError("gone")

    (result,) = run_transcript(parse_transcript(">>> 1\n1\n", "t.gsh"), factory=broken)
    report = render(session_report(result))
    assert report.startswith("ERROR t.gsh:1") and "RuntimeError: gone" in report


def test_what_the_kernel_printed_drives_nothing_in_a_report(monkeypatch):
    """A transcript's statement printing escape sequences, replayed in the real sandboxed
    kernel: the report shows them as text, coloured only by the report itself."""
    import re

    from support.terminal_attacks import ATTACKS, drives

    monkeypatch.delenv("NO_COLOR", raising=False)
    statements = "".join(f">>> {attack.source}\nnot this\n" for attack in ATTACKS)
    (result,) = run_transcript(parse_transcript(statements, "t.gsh"))
    assert result.failed == len(ATTACKS)
    report = render(session_report(result), color=True)
    shown = re.sub(r"\x1b\[[0-9;]*m", "", report)  # the report's own colours
    assert drives(shown) == []
    for attack in ATTACKS:
        for line in attack.expected.split("\n"):
            assert line in shown, attack.name


def test_summary_line():
    assert summary(3, 1) == "3 passed, 1 failed"


# -- --update ------------------------------------------------------------------------


def replayed(text: str, markdown: bool = False):
    t = parse_transcript(text, "t", markdown=markdown)
    results = run_transcript(t, factory=PythonSession)
    return t, [f for r in results for f in r.failures]


def test_update_rewrites_only_failures_and_then_passes():
    text = (
        "# notes stay\n"
        ">>> 1 + 1\n"
        "3\n"
        ">>> 'kept'   \n"
        "'kept'\n"
        ">>> print('a\\n\\nb')\n"
        "\n"
        "prose\n"
        ">>> None\n"
        "stale\n"
    )
    t, failures = replayed(text)
    assert len(failures) == 3
    new = rewrite(t.text, failures)
    assert new == (
        "# notes stay\n"
        ">>> 1 + 1\n"
        "2\n"
        ">>> 'kept'   \n"
        "'kept'\n"
        ">>> print('a\\n\\nb')\n"
        "a\n"
        "<BLANKLINE>\n"
        "b\n"
        "\n"
        "prose\n"
        ">>> None\n"
    )
    assert not replayed(new)[1]


def test_update_keeps_crlf_and_markdown_indentation():
    text = "Intro\r\n\r\n- item\r\n\r\n  ```pycon\r\n  >>> 6 * 7\r\n  0\r\n  ```\r\n"
    t, failures = replayed(text, markdown=True)
    new = rewrite(t.text, failures)
    assert new == text.replace("  0\r\n", "  42\r\n")
    assert not replayed(new, markdown=True)[1]


def test_update_writes_tracebacks_short():
    got = (
        "before\n"
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        "    f()\n"
        "ValueError: bad\n"
    )
    assert expected_lines(got) == [
        "before",
        "Traceback (most recent call last):",
        "  ...",
        "ValueError: bad",
    ]


def test_huge_output_is_cut_in_the_report():
    text = ">>> for i in range(100000): print(i)\n0\n1\n2\nx\n"
    report = render(session_report(failing_result(text)))
    assert "5 -x" in report
    assert "99797 more actual lines not shown" in report
    assert len(report.splitlines()) < 300


def test_ipython_statement_is_shown_with_its_prompts():
    text = "In [7]: for i in range(2):\n   ...:     print(i)\n   ...:\n0\n2\n"
    report = render(session_report(failing_result(text)))
    assert "    In [7]: for i in range(2):\n       ...:     print(i)\n" in report
