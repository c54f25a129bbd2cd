"""In a real terminal (a pseudo-terminal): the accumulation panel appears after the second
backward, and %step waits for Enter between nodes."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("pexpect")

from support import terminal  # noqa: E402

PROMPT = re.compile(r">>>\s*$")
STEP_PROMPT = re.compile(r"q: stop ›\s*$")


class Terminal(terminal.Terminal):
    """gradshell in a pseudo-terminal, started and read until its first prompt."""

    def __init__(self, tmp_path, *args: str) -> None:
        super().__init__(tmp_path / "data", *args)
        self.read_until(PROMPT)

    def type(self, line: str, prompt: re.Pattern = PROMPT) -> str:
        return super().type(line, prompt)

    def close(self) -> None:
        self.eof()


@pytest.fixture
def term(tmp_path):
    t = Terminal(tmp_path, "--style", "legacy")
    yield t
    t.close()


def test_accumulation_panel_after_the_second_backward(term):
    for line in (
        "import torch",
        "from torch.autograd import Variable",
        "x = Variable(torch.Tensor([2,2,2]), requires_grad=True)",
        "y = x*2",
    ):
        assert "Error" not in term.type(line)
    first = term.type("y.backward(torch.FloatTensor([0.1, 1, 10]))")
    assert "None → [0.2000, 2.0000, 20.0000]" in first
    second = term.type("y.backward(torch.FloatTensor([0.1, 1, 10]))")
    assert (
        "[0.2000, 2.0000, 20.0000] + [0.2000, 2.0000, 20.0000] = [0.4000, 4.0000, 40.0000]"
        in second
    )
    assert "← backward #2: y.backward(torch.FloatTensor([0.1, 1, 10]))" in second
    zero = term.type("x.grad.data.zero_()")
    assert "[0.4000, 4.0000, 40.0000] → zeros" in zero


def test_step_waits_for_enter_and_stops_on_q(term):
    for line in (
        "import torch",
        "x = torch.ones(2, 2, requires_grad=True)",
        "out = ((x + 2) * (x + 2) * 3).mean()",
    ):
        term.type(line)
    first = term.type("%step out", STEP_PROMPT)
    assert "step 1/6" in first and "MeanBackward" in first and "step 2/6" not in first
    second = term.type("", STEP_PROMPT)
    assert "step 2/6" in second and "step 3/6" not in second
    term.type("q")
    assert "None" in term.type("print(x.grad)")  # stepping changed nothing


def test_a_models_parameters_are_named_in_a_panel_in_a_terminal(tmp_path):
    t = Terminal(tmp_path)
    try:
        for line in (
            "import torch",
            "torch.manual_seed(0)",
            "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1))",
            "loss = model(torch.tensor([[1., 2.]])).sum()",
        ):
            assert "Error" not in t.type(line)
        screen = t.type("loss.backward()")
        names = [
            "model[0].weight.grad",
            "model[0].bias.grad",
            "model[2].weight.grad",
            "model[2].bias.grad",
        ]
        where = [screen.index("╭─ " + n) for n in names]
        assert where == sorted(where)
        assert "None → [[0.4470, -0.8923]]  (first gradient)" in screen and "<leaf" not in screen
    finally:
        t.close()


def test_counters_time_who_viz_predict_and_chinese_in_a_terminal(tmp_path):
    t = Terminal(tmp_path)
    try:
        for line in (
            "import torch",
            "x = torch.tensor([1., 2., 3.], requires_grad=True)",
            "z = (x * 3).sum()",
            "n = 3",
        ):
            assert "Error" not in t.type(line)
        assert "backward #1" in t.type("z.backward()")
        assert "RuntimeError" in t.type("z.backward()")  # freed: a failed pass
        assert "backward #2: x.sum().backward()" in t.type("x.sum().backward()")
        screen = t.type("%time (x * 2).sum().backward()")
        m = re.search(r"user (\S+) (\S+), sys: (\S+) (\S+), total: (\S+) (\S+)", screen)
        scale = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}
        user, system, total = (float(m.group(i)) * scale[m.group(i + 1)] for i in (1, 3, 5))
        assert abs(user + system - total) <= 0.01 * total + 2e-6
        who = t.type("%who x").splitlines()
        listed = [line.split()[0] for line in who if line.split() and line.split()[0] != ">>>"]
        assert listed[0] == "Variable" and listed[2:] == ["x"], who
        t.type("%viz off")
        t.type("x.sum().backward()")
        assert "changed while recording was off" in t.type("%viz on")
        assert "╭─" not in t.type("a = 1")
        t.type("y = (x**2).sum()")
        screen = t.type("%predict d(y)/dx = [2, 4, 6]")
        assert "All 3 right." in screen and "does not" not in screen
        t.type("%lang zh")
        screen = t.type("(x * 2).sum().backward()")
        # the pass made while recording was off is not numbered either
        assert "第 4 次反向传播" in screen and "backward #" not in screen
    finally:
        t.close()


def test_explain_shows_broadcast_sums_and_the_learners_names_in_a_terminal(tmp_path):
    t = Terminal(tmp_path)
    try:
        for line in (
            "import torch",
            "x = torch.ones(3)",
            "w = torch.ones(3, 2, requires_grad=True)",
            "b = torch.zeros(2, requires_grad=True)",
            "out = (torch.matmul(x, w) + b).sum()",
        ):
            assert "Error" not in t.type(line)
        assert "shares data" not in t.type("%graph out")
        t.type("out.backward()")
        t.type("s = torch.tensor(0.5, requires_grad=True)")
        t.type("loss = (torch.tensor([1., 2., 3.]) * s).mean()")
        t.type("loss.backward()")
        screen = t.type("%explain loss")
        assert "sum(0.3333 · [1., 2., 3.]) = 2" in screen and "broadcast to 3 elements" in screen
        screen = t.type("%explain out")
        assert "x @ w" in screen and "c @ w" not in screen and "no formula" not in screen
    finally:
        t.close()


def test_step_views_keep_their_colours_in_a_colour_terminal(tmp_path):
    """%step's views come live, mid-cell, on the kernel's styled stream: the front end
    writes their colours (and shows no escape of its own as text)."""
    t = terminal.Terminal(tmp_path / "data", drop_env=("NO_COLOR",))
    try:
        t.read_until(PROMPT)
        for line in (
            "import torch",
            "x = torch.ones(2, requires_grad=True)",
            "out = (x * 3).sum()",
        ):
            t.type(line, PROMPT)
        t.type("%step out", STEP_PROMPT)
        t.type("q", PROMPT)
    finally:
        t.eof()
    assert "step 1/" in terminal.plain(t.raw) and "\x1b[1mSumBackward0" in t.raw
    assert "\\x1b" not in t.raw
