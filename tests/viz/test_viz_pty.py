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
