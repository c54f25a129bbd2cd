"""IPython display forms, input splitting for piped input, and completion."""

from __future__ import annotations

import pytest

from gradshell.shell import display
from gradshell.shell.completion import complete
from gradshell.shell.inputsplit import echo, is_transcript, split_script, transcript_inputs


class _Multi:
    def __repr__(self) -> str:
        return "line one\nline two\n"


class _Own:
    def _repr_ipython_(self) -> str:
        return "<own form>"


def test_ipython_out_rules():
    assert display.ipython_out(5, 3) == "Out[3]: 5\n"
    assert display.ipython_out(_Multi(), 4) == "Out[4]: \nline one\nline two\n"
    assert display.ipython_out(_Own(), 1) == "Out[1]: <own form>\n"
    assert display.ipython_out(int, 1) == "Out[1]: int\n"


def test_ipython_containers_break_when_too_wide():
    assert display.ipython_form([1, 2, 3]) == "[1, 2, 3]"
    assert display.ipython_form((1,)) == "(1,)"
    assert display.ipython_form({3, 1, 2}) == "{1, 2, 3}"
    assert display.ipython_form(set()) == "set()"
    long = list(range(30))
    assert display.ipython_form(long) == "[" + ",\n ".join(str(i) for i in long) + "]"
    d = {"key": "v" * 80}
    assert display.ipython_form(d) == "{'key': '" + "v" * 80 + "'}"
    assert display.ipython_form([_Multi()]) == "[line one\n line two]"


SCRIPT = """import torch

# a comment
def f(a):
    b = a * 2

    return b
x = f(1)
if x:
    print(x)
else:
    print('no')
for i in range(2):
    pass


@staticmethod
def g():
    pass
"""


def test_split_script_keeps_blocks_over_blank_lines():
    chunks = [(c.kind, c.text) for c in split_script(SCRIPT)]
    assert chunks == [
        ("code", "import torch"),
        ("blank", ""),
        ("comment", "# a comment"),
        ("code", "def f(a):\n    b = a * 2\n\n    return b"),
        ("code", "x = f(1)"),
        ("code", "if x:\n    print(x)\nelse:\n    print('no')"),
        ("code", "for i in range(2):\n    pass"),
        ("blank", ""),
        ("blank", ""),
        ("code", "@staticmethod\ndef g():\n    pass"),
    ]


def test_split_script_handles_brackets_and_errors():
    chunks = [(c.kind, c.text) for c in split_script("x = (1,\n 2)\ny = )\nz = 3\n")]
    assert chunks == [("code", "x = (1,\n 2)"), ("code", "y = )"), ("code", "z = 3")]
    chunks = [(c.kind, c.text) for c in split_script("x = (1,\n")]
    assert chunks == [("code", "x = (1,")]


def test_echo():
    assert echo("x = 1", ">>> ", "... ") == ">>> x = 1\n"
    assert echo("for i in r:\n    i", ">>> ", "... ") == ">>> for i in r:\n...     i\n...\n"
    assert echo("x = (1,\n2)", "In [1]: ", "   ...: ") == "In [1]: x = (1,\n   ...: 2)\n"


def test_transcript_inputs():
    text = (
        ">>> a = 1\n>>> for i in r:\n...     i\n...\n0\nOut[3]: 5\nIn [4]: b = 2\n   ...: c = 3\n"
    )
    assert is_transcript(text)
    assert transcript_inputs(text) == ["a = 1", "for i in r:\n    i", "b = 2\nc = 3"]
    assert not is_transcript("x = 1\n")


@pytest.fixture
def filled(session):
    session.run_cell("import torch\nimport numpy as np\nxyz = torch.ones(2, requires_grad=True)")
    session.run_cell("arr = np.ones(2)\nword = 'hi'")
    return session


def names(items):
    return [text for text, _, _ in items]


def test_complete_names(filled):
    assert "xyz" in names(complete(filled, "xy"))
    assert "print" in names(complete(filled, "pri"))
    assert "while" in names(complete(filled, "whi"))
    assert all(not n.startswith("_") for n in names(complete(filled, "")))


def test_complete_attributes(filled):
    got = names(complete(filled, "xyz.requires_"))
    assert "requires_grad" in got and "requires_grad_" in got
    got = names(complete(filled, "torch.on"))
    assert "ones" in got and "ones_like" in got
    got = names(complete(filled, "arr."))
    assert "sum" in got and "ctypes" not in got and "tofile" not in got
    assert "format" in names(complete(filled, "word.fo"))
    assert "zeros" in names(complete(filled, "np.ze"))
    assert "randn" in names(complete(filled, "np.random.ra"))
    assert complete(filled, "nothing.here") == []
    assert complete(filled, "xyz.__cl") == []


def test_complete_offsets_and_magics(filled):
    assert complete(filled, "torch.on")[0][1] == -2
    assert "%style" in names(complete(filled, "%st"))
    assert names(complete(filled, "import nu")) == ["numpy", "numbers"]  # both importable


def test_completion_runs_no_learner_code(filled):
    filled.run_cell("class Trap:\n    def boom(self):\n        print('ran')\nt = Trap()")
    out = complete(filled, "t.bo")
    assert names(out) == ["boom"]
    assert filled.run_cell("1").output == "1\n"
