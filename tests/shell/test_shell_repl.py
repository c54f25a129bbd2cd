"""The real REPL, end to end: in a pseudo-terminal (pexpect) and through prompt_toolkit's
pipe input. Seed 000's session typed line by line, Ctrl-C during a loop, Ctrl-D."""

from __future__ import annotations

import re
import time

import pytest

from gradshell.shell.repl import clean_input, finished_input, next_indent
from gradshell.shell.session import Session

pexpect = pytest.importorskip("pexpect")

from support.terminal import Terminal  # noqa: E402

_LAST_PROMPT = re.compile(r"(>>>|In \[\d+\]:)\s*$")


class Repl(Terminal):
    """A gradshell REPL in a pseudo-terminal."""

    def __init__(self, tmp_path, *args: str) -> None:
        super().__init__(tmp_path / "data", *args, width=200)
        self.banner = self.read_until_prompt()

    def read_until_prompt(self, deadline: float = 60) -> str:
        """Everything shown until a fresh prompt sits last on the screen (prompt removed)."""
        return _LAST_PROMPT.sub("", self.read_until(_LAST_PROMPT, deadline).rstrip())

    def type(self, line: str) -> str:
        """Type a line and Enter; return what appeared until the next prompt."""
        self.child.sendline(line)
        return self.read_until_prompt()

    def close(self) -> None:
        self.kill()


@pytest.fixture
def repl_factory(tmp_path):
    made: list[Repl] = []

    def make(*args: str) -> Repl:
        r = Repl(tmp_path, *args)
        made.append(r)
        return r

    yield make
    for r in made:
        r.close()


SEED_000 = [
    ("import torch", ""),
    ("from torch.autograd import Variable", ""),
    ("x = Variable(torch.ones(2,2), requires_grad=True)", ""),
    ("y = x + 2", ""),
    ("y.grad_fn", "<torch.autograd.function.AddConstantBackward object at 0x"),
    ("y.grad", ""),
    ("z = y*y*3", ""),
    ("z.grad_fn", "<torch.autograd.function.MulConstantBackward object at 0x"),
    ("z", "Variable containing:\n 27  27\n 27  27\n[torch.FloatTensor of size 2x2]\n"),
    ("out = z.mean()", ""),
    ("out.grad_fn", "<torch.autograd.function.MeanBackward object at 0x"),
    ("out.backward()", ""),
    (
        "x.grad",
        "Variable containing:\n 4.5000  4.5000\n 4.5000  4.5000\n[torch.FloatTensor of size 2x2]\n",
    ),
    ("out", "Variable containing:\n 27\n[torch.FloatTensor of size 1]\n"),
    ("x = Variable(torch.Tensor([2,2,2]), requires_grad=True)", ""),
    ("y = x*2", ""),
    ("y", "Variable containing:\n 4\n 4\n 4\n[torch.FloatTensor of size 3]\n"),
    ("y.backward()", "RuntimeError: grad can be implicitly created only for scalar outputs"),
    ("y.backward(torch.FloatTensor([0.1, 1, 10]))", ""),
    ("x.grad", " 0.2000\n  2.0000\n 20.0000\n[torch.FloatTensor of size 3]"),
]


def test_seed_000_typed_line_by_line(repl_factory):
    repl = repl_factory("--style", "legacy", "--no-viz")
    assert "style: legacy" in repl.banner
    for line, expected in SEED_000:
        seen = repl.type(line)
        echoed = list(re.finditer(r">>> ?" + re.escape(line) + "\n", seen))
        assert echoed, seen
        after = seen[echoed[-1].end() :]
        if expected:
            assert expected in after, f"{line!r} showed {after!r}"
        elif line != "y.grad":
            assert after.strip() == "", f"{line!r} showed {after!r}"


def test_visual_panels_follow_the_output(repl_factory):
    pytest.importorskip("gradshell.viz.magics")
    repl = repl_factory()
    repl.type("import torch")
    repl.type("x = torch.ones(2, requires_grad=True)")
    seen = repl.type("(x * 3).sum().backward()")
    assert "x.grad" in seen  # the accumulation panel, on the visual channel


def test_ctrl_c_interrupts_a_loop_and_ctrl_d_exits(repl_factory):
    repl = repl_factory()
    repl.type("keep = 41")
    repl.child.sendline("while True: pass")
    repl.child.expect(r"\.\.\.")
    repl.child.sendline("")
    time.sleep(1.0)
    repl.child.sendintr()
    seen = repl.read_until_prompt()
    assert "KeyboardInterrupt" in seen
    assert 'File "<stdin>", line 1, in <module>' in seen
    seen = repl.type("keep + 1")
    assert "42" in seen
    # Ctrl-C on a half-typed line cancels it
    repl.child.send("this is not run")
    time.sleep(0.3)
    repl.child.sendintr()
    seen = repl.read_until_prompt()
    assert "KeyboardInterrupt" in seen
    assert "42" in repl.type("keep + 1")
    repl.child.sendeof()
    repl.child.expect(pexpect.EOF)
    repl.child.close()
    assert repl.child.exitstatus == 0


def test_multiline_block_with_auto_indent(repl_factory):
    repl = repl_factory()
    repl.child.sendline("for i in range(3):")
    repl.child.expect(r"\.\.\.")
    repl.child.sendline("print(i * 10)")  # indented automatically
    repl.child.expect(r"\.\.\.")
    seen = repl.type("")
    assert re.search(r"0\n10\n20\n", seen), seen


def test_ipython_prompts_and_magics(repl_factory):
    repl = repl_factory("--prompt", "ipython")
    repl.type("x = 6")
    seen = repl.type("x * 7")
    assert "Out[2]: 42" in seen
    seen = repl.type("%who")
    assert "Variable" in seen and "x" in seen
    repl.child.sendeof()
    repl.child.expect(pexpect.EOF)


def test_refusals_keep_the_session(repl_factory):
    repl = repl_factory()
    repl.type("keep = 41")
    seen = repl.type("import subprocess")
    assert "gradshell: import of 'subprocess' is not available here" in seen
    assert "42" in repl.type("keep + 1")


def test_ctrl_r_searches_history(repl_factory):
    repl = repl_factory()
    repl.type("searched_name = 777")
    repl.type("other = 1")
    repl.child.send("\x12")  # Ctrl-R
    time.sleep(0.3)
    repl.child.send("searched")
    time.sleep(0.3)
    repl.child.send("\r")  # accept the found line
    time.sleep(0.3)
    repl.child.send("\r")  # run it
    repl.read_until_prompt()
    assert "777" in repl.type("searched_name")


def test_history_is_saved_in_the_data_dir(repl_factory, tmp_path):
    repl = repl_factory()
    repl.type("marker_value = 12345")
    repl.child.sendeof()
    repl.child.expect(pexpect.EOF)
    history = (tmp_path / "data" / "history").read_text()
    assert "marker_value = 12345" in history


# --- the same REPL loop driven through prompt_toolkit's pipe input -----------------


def test_pipe_input_session(capsys, tmp_path, monkeypatch):
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from gradshell.shell.repl import run_repl

    monkeypatch.setenv("GRADSHELL_DATA_DIR", str(tmp_path))
    session = Session(viz=False)
    with create_pipe_input() as pipe:
        pipe.send_text("x = 20\r")
        pipe.send_text("x + 22\r")
        pipe.send_text("for i in range(2):\rprint('loop', i)\r\r")
        pipe.send_text("exit(5)\r")
        code = run_repl(session, "banner\n", input=pipe, output=DummyOutput())
    assert code == 5
    out = capsys.readouterr().out
    assert out == "banner\n42\nloop 0\nloop 1\n"


def test_enter_rules():
    s = Session(viz=False)
    assert finished_input(s, "x = 1")
    assert not finished_input(s, "for i in r:")
    assert not finished_input(s, "for i in r:\n    pass")
    assert finished_input(s, "for i in r:\n    pass\n    ")
    assert finished_input(s, "x = (1,\n2)")
    assert not finished_input(s, "x = (1,")
    assert finished_input(s, "%who")
    assert next_indent("for i in r:") == "    "
    assert next_indent("    return x") == ""
    assert next_indent("    y = 1") == "    "
    assert clean_input("for i in r:\n    pass\n    \n") == "for i in r:\n    pass"


def test_typed_indentation_replaces_the_automatic_one(repl_factory):
    repl = repl_factory()
    repl.child.sendline("for i in range(3):")
    repl.child.expect(r"\.\.\.")
    repl.child.sendline("    if i:")  # the learner indents by hand, as in a file
    repl.child.expect(r"\.\.\.")
    repl.child.sendline("        print(i * 10)")
    repl.child.expect(r"\.\.\.")
    seen = repl.type("")
    assert "IndentationError" not in seen
    assert re.search(r"10\n20\n", seen), seen


def test_backspace_removes_one_level_of_indentation(repl_factory):
    repl = repl_factory()
    repl.child.sendline("for i in range(2):")
    repl.child.expect(r"\.\.\.")
    repl.child.sendline("print(i)")  # indented automatically
    repl.child.expect(r"\.\.\.")
    repl.child.send("\x7f")  # one Backspace: back to the left margin, not one space
    repl.child.sendline("print('done')")
    repl.child.expect(r"\.\.\.")
    seen = repl.type("")
    assert "IndentationError" not in seen and "SyntaxError" not in seen
    assert re.search(r"0\n1\ndone\n", seen), seen


def test_backspace_width():
    from gradshell.shell.repl import backspace_width

    assert [backspace_width(b) for b in ("", "x", "    ", "     ", "        ", "  ", " x ")] == [
        1,
        1,
        4,
        1,
        4,
        2,
        1,
    ]
