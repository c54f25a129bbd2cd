"""The runner against a CPython-backed fake session: markers, fresh sessions, styles, errors."""

from __future__ import annotations

from replay_pysession import PythonSession

from gradshell.replay.parser import parse_transcript
from gradshell.replay.runner import run_session, run_transcript


def run(text: str, **kw):
    t = parse_transcript(text, "t.gsh")
    return run_transcript(t, factory=kw.pop("factory", PythonSession), **kw)


def test_matching_and_mismatching_examples():
    (result,) = run(">>> 1 + 1\n2\n>>> print('a')\nb\n>>> x = 3\n")
    assert [r.status for r in result.examples] == ["passed", "failed", "passed"]
    assert (result.passed, result.failed, result.skipped, result.ok) == (2, 1, 0, False)
    (failure,) = result.failures
    assert failure.example.line == 3 and failure.got == "a\n"
    assert failure.comparison.first_diff_line(failure.example.want_line) == 4


def test_skip_is_not_run_and_random_is_run_but_not_compared():
    text = (
        ">>> seen = []\n"
        ">>> seen.append('skip')  # replay: skip\n"
        "this is never compared\n"
        ">>> seen.append('random') or 12345  # replay: random\n"
        "67890\n"
        ">>> seen\n"
        "['random']\n"
    )
    (result,) = run(text)
    assert [r.status for r in result.examples] == ["passed", "skipped", "random", "passed"]
    assert result.ok and result.skipped == 1 and result.passed == 3


def test_examples_after_a_mismatch_still_run():
    (result,) = run(">>> 1\n9\n>>> 2\n9\n>>> 3\n3\n")
    assert [r.status for r in result.examples] == ["failed", "failed", "passed"]


def test_each_session_is_fresh():
    text = "# replay: session=one\n>>> a = 1\n>>> a\n1\n\n# replay: session=two\n>>> a\n1\n"
    one, two = run(text)
    assert one.ok
    assert not two.ok
    assert "NameError: name 'a' is not defined" in two.failures[0].got


def test_style_and_prompt_reach_the_factory():
    calls = []

    def factory(style, prompt):
        calls.append((style, prompt))
        return PythonSession(style, prompt)

    text = (
        "# replay: session=legacy\n>>> 1\n[torch.FloatTensor of size 1]\n\n"
        "# replay: session=ipython\n>>> 1\nOut[1]: 1\n\n"
        "# replay: session=plain\n>>> 1\n1\n"
    )
    results = run(text, factory=factory)
    assert calls == [("legacy", "python"), ("modern", "ipython"), ("modern", "python")]
    assert [r.style for r in results] == ["legacy", "modern", "modern"]
    assert results[1].ok  # Out[n] numbers are normalised
    calls.clear()
    run(text, factory=factory, style="legacy")
    assert [c[0] for c in calls] == ["legacy", "legacy", "legacy"]


def test_a_session_that_cannot_start_is_reported():
    def broken(style, prompt):
        raise RuntimeError("no shell today")

    (result,) = run(">>> 1\n1\n", factory=broken)
    assert not result.ok and result.failed == 1
    assert "could not start" in result.error and "no shell today" in result.error


def test_a_session_that_raises_stops_with_a_report():
    class Exploding(PythonSession):
        def run_cell(self, source):
            if "boom" in source:
                raise ValueError("kaput")
            return super().run_cell(source)

    (result,) = run(">>> 1\n1\n>>> boom\n>>> 2\n2\n", factory=Exploding)
    assert result.passed == 1 and len(result.examples) == 1
    assert "ValueError: kaput" in result.error and "line 3" in result.error


def test_run_session_uses_gradshell_by_default():
    t = parse_transcript(">>> import torch\n>>> torch.ones(2)\ntensor([1., 1.])\n")
    result = run_session("t.gsh", t.sessions[0])
    assert result.ok, result.failures
