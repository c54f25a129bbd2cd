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

    def read_until(self, pattern: re.Pattern, deadline: float = 90, after: str = "") -> str:
        return super().read_until(pattern, deadline, after)

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
    assert "Not yet" not in screen  # a further backward() could still add to x.grad
    assert "None → [0.3000, 3.0000, 30.0000]" in screen  # the visual panel is on
    screen = t.type("x.grad", "(5.1) >>>")  # looking at it: wrong, the answer not given
    assert "Not yet: x.grad holds [0.3, 3, 30], which is not what" in screen
    assert "[0.2, 2, 20]" not in screen

    # a hint, then a skip
    assert "Hint 1/2" in t.type("hint", "(5.1) >>>")
    screen = t.type("skip", "predict ›")
    assert "The reference solution:" in screen and "Step 2/6" in screen

    # a prediction and a right answer
    t.type("[0.4, 4, 40]", "(5.2) >>>")
    t.type("y = x * 2", "(5.2) >>>")
    screen = t.type("y.backward(torch.tensor([0.1, 1.0, 10.0]))", "(5.3) >>>")
    # one verdict: the prediction's (the task being done goes without saying)
    assert "✓ Right!" in screen and "Well done" not in screen and "Step 3/6" in screen

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


class LessonTerminal(Terminal):
    """`gradshell learn NAME` in a pseudo-terminal, in a given language."""

    def __init__(self, data_dir, name: str, lang: str = "en") -> None:
        terminal.Terminal.__init__(
            self, data_dir, "learn", name, "--lang", lang, drop_env=("LANGUAGE",)
        )


def test_a_step_about_a_backward_passes_only_after_the_backward_in_a_terminal(tmp_path):
    t = LessonTerminal(tmp_path / "data", "2")
    try:
        t.read_until(prompt("(2.1) >>>"))
        for n in range(1, 6):  # go on to step 6 (each unfinished step runs its reference)
            screen = t.type("next", f"(2.{n + 1}) >>>" if n != 2 else "predict ›")
            if n == 2:
                t.type("", "(2.3) >>>")
        assert "Tutorials warn about a trap" in screen and "Seed" not in screen
        t.type("x1 = 2 * torch.ones(2, 2, requires_grad=True)", "(2.6) >>>")
        screen = t.type("x1.is_leaf", "(2.6) >>>")
        assert "Well done" not in screen and "Not yet" not in screen
        screen = t.type("x1.sum().backward()", "(2.6) >>>")
        assert "Well done" not in screen
        screen = t.type("x1.grad", "(2.7) >>>")
        assert "not a leaf Tensor" in screen and "✓ Well done." in screen
        t.type("play", "(play) >>>")
        assert "type next to return" in t.type("help", "(play) >>>")
        t.type("next", "(2.7) >>>")
    finally:
        t.kill()


def test_a_print_step_and_two_values_on_one_line_in_chinese(tmp_path):
    t = LessonTerminal(tmp_path / "data", "10", lang="zh")
    try:
        t.read_until(prompt("(10.1) >>>"))
        t.type("next", "(10.2) >>>")
        screen = t.type("next", "预测 ›")
        t.type("-2", "(10.3) >>>")
        t.type("loss = ((w * x + b - y) ** 2).mean()", "(10.3) >>>")
        screen = t.type("loss.backward()", "(10.3) >>>")
        assert "做得好" not in screen and "-2.2105" not in screen
        screen = t.type('print(f"{w.grad.item():.4f} {b.grad.item():.4f}")', "(10.4) >>>")
        assert "-2.2105 -2.0000" in screen and "✓" in screen
    finally:
        t.kill()


def test_chinese_lesson_text_wraps_by_width_in_a_narrow_terminal(tmp_path):
    t = terminal.Terminal(
        tmp_path / "data", "learn", "5", "--lang", "zh", width=70, drop_env=("LANGUAGE",)
    )
    try:
        screen = t.read_until(prompt("(5.1) >>>"), 90)
        assert "运行 y.backward(torch.tensor([0.1, 1.0, 10.0]))，然后看看" in screen
        screen = t.type("x = torch.tensor([2., 2., 2.], requires_grad=True)", prompt("(5.1) >>>"))
        t.type("y = x * 2", prompt("(5.1) >>>"))
        screen = t.type("y.backward(torch.tensor([0.1, 1.0, 10.0]))", prompt("(5.1) >>>"))
        assert "第一次得到梯度" in screen and "第 1 次反向传播" in screen
        assert "first gradient" not in screen and "backward #" not in screen
    finally:
        t.kill()


def test_teachers_commands_in_a_terminal(tmp_path):
    import json

    data = tmp_path / "data"
    store = ProgressStore(data / "learn" / "progress.json")
    store.load()
    store.record("graph", step="first-node", done="leaf")
    t = terminal.Terminal(data, "learn", "--export", "-", "--learner", "Ada", "--lang", "en")
    text = t.eof()
    report = json.loads(text[text.index("{") :])
    assert report["learner"] == "Ada" and report["lessons"][1]["done"] == ["leaf"]
    transcript = tmp_path / "add.gsh"
    transcript.write_text(
        "# Adding up\n>>> x = torch.ones(2, requires_grad=True)\n>>> x.sum().backward()\n"
        ">>> x.grad\ntensor([1., 1.])\n",
        encoding="utf-8",
    )
    lesson_file = tmp_path / "11-add.toml"
    t = terminal.Terminal(data, "learn", "--new", str(transcript), "--out", str(lesson_file))
    assert "Lesson drafted in" in t.eof()
    t = terminal.Terminal(data, "learn", "--check", str(lesson_file))
    assert "ok (1 step, 4 statements replayed)" in t.eof()


def test_a_lessons_reset_restores_fresh_print_options_in_a_terminal(tmp_path):
    t = Terminal(tmp_path / "data")
    try:
        t.read_until(prompt("(5.1) >>>"))
        t.type("torch.set_printoptions(precision=1)", "(5.1) >>>")
        assert "tensor([0.3])" in t.type("torch.tensor([1/3])", "(5.1) >>>")
        t.type("reset", "(5.1) >>>")
        assert "tensor([0.3333])" in t.type("torch.tensor([1/3])", "(5.1) >>>")
    finally:
        t.kill()


def test_in_a_colour_terminal_the_lesson_keeps_its_colours_and_learner_code_drives_nothing(
    tmp_path,
):
    """The lesson's own text is coloured by the front end; what the learner's code prints
    in a step reaches the terminal as text."""
    from support.terminal_attacks import ATTACKS

    t = terminal.Terminal(
        tmp_path / "data", "learn", "1", "--lang", "en", drop_env=("LANGUAGE", "NO_COLOR")
    )
    try:
        t.read_until(prompt("(1.1) >>>"), deadline=90)
        for attack in ATTACKS:
            t.type(attack.source, prompt("(1.1) >>>"))
    finally:
        t.kill()
    raw = t.raw
    # the lesson's inline code, bold cyan on black, as the front end writes it
    assert "\x1b[1;36;40mtorch\x1b[0m is already imported" in raw
    for attack in ATTACKS:
        assert attack.expected.replace("\n", "\r\n") in raw, attack.name
        assert attack.forbidden not in raw, attack.name
