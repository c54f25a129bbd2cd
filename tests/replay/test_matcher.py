"""Normalisation and matching rules: addresses, line endings, Out[n], ELLIPSIS, tracebacks."""

from __future__ import annotations

import pytest

from gradshell.replay.matcher import compare, lines_match
from gradshell.replay.normalise import normalise_text


def test_addresses_trailing_space_line_endings_and_out_numbers():
    want = ("Out[6]: <AddBackward0 object at 0x00000178B6D15C18>  ",)
    assert compare(want, "Out[2]: <AddBackward0 object at 0x7f3a8eea2e20>\r\n").ok
    assert normalise_text("a \r\nb\t\rc\n\n\n") == ["a", "b", "c"]


def test_a_different_object_is_still_a_difference():
    got = "<MulBackward0 object at 0x7f3a8eea2e20>\n"
    result = compare(("<AddBackward0 object at 0x229e7068138>",), got)
    assert not result.ok and result.first_diff == 0


def test_hex_that_is_not_an_address_is_compared():
    assert not compare(("0xff",), "0xfe\n").ok


def test_leading_blank_lines_count_but_not_after_a_bare_out_prompt():
    assert not compare((" 0",), "\n 0\n").ok
    assert compare(("", " 0"), "\n 0\n").ok
    assert compare(("Out[60]: ", " 0"), "Out[3]: \n\n 0\n").ok


def test_inner_spacing_is_compared():
    result = compare((" 27 27",), " 27  27\n")
    assert not result.ok and result.want == [" 27 27"] and result.got == [" 27  27"]


@pytest.mark.parametrize(
    ("pattern", "got", "ok"),
    [
        (["a", "...", "z"], ["a", "b", "c", "z"], True),
        (["a", "...", "z"], ["a", "z"], True),
        (["...", "z"], ["x", "y", "z"], True),
        (["a", "..."], ["a"], True),
        (["..."], [], True),
        (["a", "...", "m", "...", "z"], ["a", "b", "m", "n", "z"], True),
        (["a", "...", "m", "...", "z"], ["a", "b", "n", "z"], False),
        (["a", "...", "z"], ["b", "z"], False),
        (["a", "...", "z"], ["a", "y"], False),
        (["a", "...", "a"], ["a"], False),
        (["a", "b"], ["a", "b", "c"], False),
        (["a.. ..."], ["a whatever"], False),
    ],
)
def test_ellipsis_lines(pattern, got, ok):
    assert lines_match(pattern, got) is ok


def test_first_difference_with_ellipsis_points_at_the_failing_segment():
    assert compare(("a", "...", "m", "...", "z"), "a\nb\nz\n").first_diff == 2
    assert compare(("a", "...", "z"), "a\nb\ny\n").first_diff == 2
    assert compare(("a", "b", "...", "z"), "a\nc\nz\n").first_diff == 1


def test_first_difference_when_got_has_extra_or_missing_lines():
    extra = compare(("a",), "a\nb\n")
    assert extra.first_diff == 1 and extra.first_diff_line(10) == 11
    missing = compare(("a", "b"), "a\n")
    assert missing.first_diff == 1 and missing.first_diff_line(10) == 11
    nothing_expected = compare((), "surprise\n")
    assert nothing_expected.first_diff_line(7) == 7


TRACEBACK_WANT = (
    "Traceback (most recent call last):",
    ' File "C:\\Users\\dell\\site-packages\\torch\\autograd\\__init__.py", line 34',
    '  raise RuntimeError("grad can be implicitly created only for scalar outputs")',
    "RuntimeError: grad can be implicitly created only for scalar outputs",
)


def test_traceback_matches_on_its_last_line():
    got = (
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        "    y.backward()\n"
        "RuntimeError: grad can be implicitly created only for scalar outputs\n"
    )
    assert compare(TRACEBACK_WANT, got).ok
    short = (
        "Traceback (most recent call last):",
        "...",
        "RuntimeError: grad can be implicitly created only for scalar outputs",
    )
    assert compare(short, got).ok


def test_traceback_with_another_message_fails_on_the_message_line():
    got = "Traceback (most recent call last):\n  File x\nRuntimeError: something else\n"
    result = compare(TRACEBACK_WANT, got)
    assert not result.ok
    assert result.want == ["Traceback (most recent call last):", TRACEBACK_WANT[-1]]
    assert result.first_diff == 1 and result.first_diff_line(45) == 48


def test_output_printed_before_a_traceback_is_compared():
    want = ("before", "Traceback (most recent call last):", "  ...", "ValueError: x")
    assert compare(want, "before\nTraceback (most recent call last):\n  f\nValueError: x\n").ok
    assert not compare(want, "other\nTraceback (most recent call last):\n  f\nValueError: x\n").ok


def test_expected_traceback_but_none_raised():
    result = compare(TRACEBACK_WANT, "tensor([1.])\n")
    assert not result.ok and result.first_diff == 0


def test_unexpected_traceback_shows_in_full():
    got = "Traceback (most recent call last):\n  File x\nNameError: name 'y' is not defined\n"
    result = compare(("1",), got)
    assert not result.ok and len(result.got) == 3
