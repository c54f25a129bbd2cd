"""In a real terminal (a pseudo-terminal, prompt_toolkit reading the keys): a whole
lesson with a wrong answer, a hint, a skip, Ctrl-D, and a resume at the same step."""

from __future__ import annotations

import re

import pytest

from gradshell.learn.progress import ProgressStore

pytest.importorskip("pexpect")

from support import terminal  # noqa: E402


def prompt(label: str) -> re.Pattern:
    return re.compile(re.escape(label) + r"\s*$")


class Terminal(terminal.Terminal):
    """`gradshell learn 5` in a pseudo-terminal."""

    def __init__(self, data_dir) -> None:
        super().__init__(data_dir, "learn", "5", "--lang", "en", drop_env=("LANGUAGE",))

    def read_until(self, pattern: re.Pattern, deadline: float = 90) -> str:
        return super().read_until(pattern, deadline)

    def type(self, line: str, until: str) -> str:
        return super().type(line, prompt(until))

    def ctrl_d(self) -> str:
        return self.eof()


def test_a_lesson_in_a_terminal_with_a_wrong_answer_a_hint_a_skip_ctrl_d_and_resume(tmp_path):
    data = tmp_path / "data"
    t = Terminal(data)
    screen = t.read_until(prompt("(5.1) >>>"))
    assert "Lesson 5: Gradients add up" in screen and "Step 1/6" in screen

    # a wrong answer
    t.type("x = torch.tensor([2., 2., 2.], requires_grad=True)", "(5.1) >>>")
    t.type("y = x * 3", "(5.1) >>>")
    screen = t.type("y.backward(torch.tensor([0.1, 1.0, 10.0]))", "(5.1) >>>")
    assert "Not yet: x.grad holds [0.3, 3, 30]; the task wants [0.2, 2, 20]" in screen
    assert "None → [0.3000, 3.0000, 30.0000]" in screen  # the visual panel is on

    # a hint, then a skip
    assert "Hint 1/2" in t.type("hint", "(5.1) >>>")
    screen = t.type("skip", "predict ›")
    assert "The reference solution:" in screen and "Step 2/6" in screen

    # a prediction and a right answer
    t.type("[0.4, 4, 40]", "(5.2) >>>")
    t.type("y = x * 2", "(5.2) >>>")
    screen = t.type("y.backward(torch.tensor([0.1, 1.0, 10.0]))", "(5.3) >>>")
    assert "✓ Well done." in screen and "✓ Right!" in screen and "Step 3/6" in screen

    # Ctrl-D saves and leaves
    assert "Progress saved" in t.ctrl_d()
    saved = ProgressStore(data / "learn" / "progress.json").load().lessons["accumulation"]
    assert saved.step == "zero" and saved.skipped == ["first-backward"]

    # ... and the next run resumes at the same step, with the variables of that step
    t = Terminal(data)
    screen = t.read_until(prompt("(5.3) >>>"))
    assert "Welcome back: resuming lesson 5 at step 3 of 6." in screen
    assert "tensor([ 0.4000,  4.0000, 40.0000])" in t.type("x.grad", "(5.3) >>>")
    t.type("x.grad.zero_()", "(5.4) >>>")
    t.type("y = x * 2", "(5.4) >>>")
    t.type("y.backward(torch.tensor([0.1, 1.0, 10.0]))", "predict ›")
    t.type("5.5", "(5.5) >>>")
    for line in (
        "x = torch.ones(2, 2, requires_grad=True)",
        "y = x + 2",
        "z = y * y * 3",
        "z_mean = z.mean()",
        "z_mean.backward()",
    ):
        t.type(line, "(5.5) >>>")
    t.type("x.sum().backward()", "(5.6) >>>")
    t.type("x.grad = None", "(5.6) >>>")
    screen = t.type("x.sum().backward()", "(5 ✓) >>>")
    assert "★ Lesson 5 complete" in screen and "Type next for lesson 6" in screen
    screen = t.ctrl_d()
    assert "Progress saved" in screen
    saved = ProgressStore(data / "learn" / "progress.json").load().lessons["accumulation"]
    assert saved.finished
    assert set(saved.done) == {
        "second-backward",
        "zero",
        "third-backward",
        "two-outputs",
        "zero-then-sum",
    }
