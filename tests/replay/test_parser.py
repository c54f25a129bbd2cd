"""Transcript parsing: prompts, continuation, expected output, options, Markdown, errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradshell.replay.detect import detect_prompt, detect_style, resolve_style
from gradshell.replay.model import TranscriptError
from gradshell.replay.parser import NoSessionsError, parse_transcript, read_transcript

SEEDS = Path(__file__).resolve().parents[1] / "transcripts" / "seeds"


def examples(text: str, **kw):
    return parse_transcript(text, **kw).examples


def test_doctest_prompts_and_expected_output():
    exs = examples(">>> x = 1\n>>> x + 1\n2\n>>> print('a')\na\nb\n\nprose here\n>>> x\n1\n")
    assert [e.source for e in exs] == ["x = 1", "x + 1", "print('a')", "x"]
    assert [e.want for e in exs] == [(), ("2",), ("a", "b"), ("1",)]
    assert [e.line for e in exs] == [1, 2, 4, 9]
    assert [(e.want_line, e.want_end) for e in exs] == [(2, 2), (3, 4), (5, 7), (10, 11)]


def test_blank_line_ends_output_and_blankline_marker_keeps_one():
    (ex,) = examples(">>> t\n<BLANKLINE>\n 0\n[torch.FloatTensor of size 1]\n\nnot output\n")
    assert ex.want == ("", " 0", "[torch.FloatTensor of size 1]")


def test_continuation_lines_and_empty_continuation_inside_a_block():
    text = ">>> def f():\n...     a = 1\n...\n...     return a\n...\n>>> f()\n1\n"
    f, call = examples(text)
    assert f.source == "def f():\n    a = 1\n\n    return a\n"
    assert f.want == ()
    assert call.want == ("1",)


def test_bare_dots_after_a_finished_statement_is_ellipsis_output():
    (ex,) = examples(">>> print('x')\n...\nlast\n")
    assert ex.source == "print('x')"
    assert ex.want == ("...", "last")


def test_bare_dots_after_a_block_is_first_a_continuation_then_ellipsis():
    (ex,) = examples(">>> for i in range(3):\n...     print(i)\n...\n...\n2\n")
    assert ex.source == "for i in range(3):\n    print(i)\n"
    assert ex.want == ("...", "2")


def test_ipython_prompts():
    text = (
        "In [1]: x = 2\n"
        "\n"
        "In [2]: def f():\n"
        "   ...:     return x\n"
        "   ...: \n"
        "\n"
        "In [3]: f()\n"
        "Out[3]: 2\n"
    )
    t = parse_transcript(text)
    a, b, c = t.examples
    assert (a.source, b.source, c.source) == ("x = 2", "def f():\n    return x\n", "f()")
    assert c.want == ("Out[3]: 2",)
    assert {e.prompt for e in t.examples} == {"ipython"}
    assert detect_prompt(t.sessions[0]) == "ipython"


def test_seed_000_parses_as_it_is():
    t = read_transcript(SEEDS / "000_5d0aa6e366bca92f.txt")
    (session,) = t.sessions
    assert len(session.examples) == 26
    by_source = {e.source.split("#")[0].strip(): e for e in session.examples}
    assert by_source["y.grad_fn"].want == (
        "Out[6]: <torch.autograd.function.AddConstantBackward at 0x229e7068138>",
    )
    assert by_source["y.grad"].want == ()
    assert by_source["z"].want[:2] == ("Out[10]: ", "Variable containing:")
    traceback = by_source["y.backward()"].want
    assert traceback[0] == "Traceback (most recent call last):"
    assert traceback[-1] == "RuntimeError: grad can be implicitly created only for scalar outputs"
    assert detect_style(session) == "legacy"
    assert detect_prompt(session) == "ipython"


def test_statement_markers():
    exs = examples(">>> a = 1  # replay: skip\n>>> b  # replay: random\n5\n>>> c\n")
    assert [e.mode for e in exs] == ["skip", "random", "compare"]


def test_marker_on_a_continuation_line_counts():
    (ex,) = examples(">>> if 1:\n...     print(1)  # replay: random\n...\n9\n")
    assert ex.mode == "random"


def test_sessions_and_options_in_a_text_transcript():
    text = (
        "# replay: style=legacy\n"
        "# replay: session=first\n"
        ">>> 1\n"
        "1\n"
        "# replay: session=second\n"
        "# replay: prompt=ipython style=modern\n"
        ">>> 2\n"
        "# replay: session=third\n"
        ">>> 3\n"
    )
    first, second, third = parse_transcript(text).sessions
    assert [s.name for s in (first, second, third)] == ["first", "second", "third"]
    assert (first.style, first.prompt) == ("legacy", None)
    assert (second.style, second.prompt) == ("modern", "ipython")
    assert (third.style, third.prompt) == ("legacy", None)
    assert [s.line for s in (first, second, third)] == [2, 5, 8]


def test_front_matter_selects_the_style():
    t = parse_transcript("---\ntitle: x\nstyle: legacy\n---\n>>> 1\n1\n")
    assert t.sessions[0].style == "legacy"
    assert t.examples[0].line == 5


def test_style_detection_from_expected_output():
    legacy = parse_transcript(">>> x\n[torch.FloatTensor of size 2]\n").sessions[0]
    variable = parse_transcript(">>> x\nVariable containing:\n").sessions[0]
    modern = parse_transcript(">>> x\ntensor([1.])\n").sessions[0]
    assert detect_style(legacy) == detect_style(variable) == "legacy"
    assert detect_style(modern) == "modern"
    assert resolve_style(modern, "legacy") == "legacy"


def test_duplicate_session_names_are_made_unique():
    t = parse_transcript("# replay: session=a\n>>> 1\n# replay: session=a\n>>> 2\n")
    assert [s.name for s in t.sessions] == ["a", "a (2)"]


MARKDOWN = """\
---
style: modern
---
# A lesson

Prose with a prompt-looking line that is not in a block:
>>> this is prose

```python
>>> not_a_session = 1
```

```pycon
>>> 1 + 1
2
```

- a list item:

  ```gradshell style=legacy session=indented
  >>> x = 1
  >>> x
  1
  ```

~~~pycon
>>> 3
3
~~~
"""


def test_markdown_only_tagged_blocks_are_sessions():
    t = parse_transcript(MARKDOWN, markdown=True)
    assert [s.name for s in t.sessions] == ["block at line 13", "indented", "block at line 26"]
    first, indented, tilde = t.sessions
    assert first.examples[0].source == "1 + 1" and first.examples[0].line == 14
    assert first.style == "modern"
    assert indented.style == "legacy"
    assert indented.examples[1].want == ("1",)
    assert indented.examples[1].indent == "  "
    assert tilde.examples[0].want == ("3",)


def test_markdown_session_names_are_taken_literally():
    t = parse_transcript("```pycon session={odd}name\n>>> 1\n1\n```\n", markdown=True)
    assert t.sessions[0].name == "{odd}name"


def test_markdown_without_sessions_has_none():
    t = parse_transcript("# Title\n\n```python\n>>> 1\n```\n", markdown=True)
    assert t.sessions == []


# -- malformed transcripts: a clear error naming the file and line, never a crash ------


def error_of(text: str, **kw) -> TranscriptError:
    with pytest.raises(TranscriptError) as info:
        parse_transcript(text, "t.gsh", **kw)
    return info.value


def test_unterminated_markdown_block():
    err = error_of("text\n\n```pycon\n>>> 1\n1\n", markdown=True)
    assert err.line == 3 and "never closed" in str(err) and str(err).startswith("t.gsh:3:")


def test_unfinished_statement():
    err = error_of(">>> 1\n1\n>>> x = (1,\n2)\n")
    assert err.line == 3 and "never finished" in err.message


def test_unfinished_block_at_end_of_file():
    err = error_of(">>> def f():\n")
    assert err.line == 1 and "never finished" in err.message


def test_no_prompts():
    with pytest.raises(NoSessionsError) as info:
        parse_transcript("just some text\nwithout prompts\n", "t.gsh")
    assert "no `>>>` or `In [n]:` prompts" in str(info.value)


def test_markdown_block_without_prompts():
    err = error_of("```pycon\nprint(1)\n```\n", markdown=True)
    assert err.line == 1 and "no `>>>`" in err.message


def test_unknown_options_and_markers():
    assert "unknown style" in error_of("# replay: style=fancy\n>>> 1\n").message
    assert "unknown replay option" in error_of("# replay: colour=red\n>>> 1\n").message
    assert "unknown statement marker" in error_of(">>> 1  # replay: skipp\n").message
    assert "marks a statement" in error_of("# replay: skip\n>>> 1\n").message
    assert "never closed" in error_of("---\nstyle: legacy\n>>> 1\n").message


def test_output_indented_less_than_its_prompt():
    err = error_of("  >>> 1\n1\n")
    assert err.line == 2 and "indented less" in err.message


def test_named_session_without_prompts():
    err = error_of(">>> 1\n# replay: session=empty\n")
    assert "has no prompts" in err.message


def test_binary_junk(tmp_path):
    junk = tmp_path / "junk.gsh"
    junk.write_bytes(bytes(range(256)) * 40)
    with pytest.raises(TranscriptError) as info:
        read_transcript(junk)
    assert "binary data" in str(info.value) and str(junk) in str(info.value)
    latin = tmp_path / "latin.gsh"
    latin.write_bytes(b">>> 1\n1\n>>> '\xe9t\xe9'\n")
    with pytest.raises(TranscriptError) as info:
        read_transcript(latin)
    assert "not UTF-8" in str(info.value) and info.value.line == 3


def test_control_characters_in_text():
    err = error_of(">>> 1\n\x07\n")
    assert err.line == 2 and "control character" in err.message


def test_a_10_mb_file_is_refused_quickly(tmp_path):
    big = tmp_path / "big.gsh"
    big.write_text(">>> 1 + 1\n2\n" * (10 * 1024 * 1024 // 12))
    with pytest.raises(TranscriptError) as info:
        read_transcript(big)
    assert "too large" in str(info.value) and "MB" in str(info.value)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(TranscriptError, match="cannot read the file"):
        read_transcript(tmp_path / "nope.gsh")
    with pytest.raises(TranscriptError, match="not a file"):
        read_transcript(tmp_path)


def test_windows_line_endings_and_bom():
    t = parse_transcript("\ufeff>>> 1 + 1\r\n2\r\n\r\n>>> 3\r\n3\r\n")
    assert [e.want for e in t.examples] == [("2",), ("3",)]
    assert t.examples[1].line == 4


PIECES = [
    ">>> ",
    "... ",
    "...",
    "In [1]: ",
    "   ...: ",
    "Out[2]: ",
    "```pycon",
    "```",
    "~~~gradshell",
    "---",
    "style: legacy",
    "# replay: ",
    "session=a",
    "style=modern",
    "skip",
    "random",
    "<BLANKLINE>",
    "Traceback (most recent call last):",
    "def f():",
    "    ",
    "(",
    ")",
    "'",
    '"""',
    "x = 1",
    "\\",
    ":",
    "#",
    "\t",
    "é",
    "\n",
    "\r\n",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40), st.booleans())
def test_any_text_parses_or_gives_a_transcript_error(pieces, markdown):
    text = "".join(pieces)
    try:
        t = parse_transcript(text, "fuzz.gsh", markdown=markdown)
    except TranscriptError as exc:
        assert exc.path == "fuzz.gsh" and exc.message
        return
    for example in t.examples:
        assert example.line >= 1 and example.want_line <= example.want_end
