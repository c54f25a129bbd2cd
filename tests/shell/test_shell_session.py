"""Session.run_cell: displays, tracebacks, warnings, completeness, styles, robustness."""

from __future__ import annotations

import re
import traceback

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradshell.shell.session import CellResult, Session

ADDR = re.compile(r"0x[0-9a-fA-F]+")


def norm(text: str) -> str:
    return ADDR.sub("0x…", text)


# --- displays -------------------------------------------------------------------------


def test_python_style_display_and_underscore(session):
    assert session.run_cell("1 + 1").output == "2\n"
    assert session.run_cell("_ * 10").output == "20\n"
    assert session.run_cell("None").output == ""
    assert session.run_cell("x = 5").output == ""
    assert session.run_cell("'a'").output == "'a'\n"
    assert session.run_cell("_").output == "'a'\n"


def test_python_style_displays_every_expression_statement(session):
    out = session.run_cell("1\n2\nfor i in range(2):\n    i\nif True:\n    'yes'").output
    assert out == "1\n2\n0\n1\n'yes'\n"
    # but not inside function bodies
    assert session.run_cell("def f():\n    123\nf()").output == ""


def test_ipython_style_out_numbering(ipy):
    assert ipy.run_cell("x = 1").output == ""
    assert ipy.run_cell("x + 1").output == "Out[2]: 2\n"
    assert ipy.run_cell("x\nx + 5").output == "Out[3]: 6\n"  # only the last expression
    assert ipy.run_cell("x + 1;").output == ""  # a trailing semicolon hides it
    assert ipy.run_cell("for i in range(2):\n    i").output == ""
    assert ipy.ps1() == "In [6]: "
    assert ipy.ps2() == "   ...: "


def test_ipython_multiline_repr_starts_on_a_new_line(ipy):
    ipy.run_cell("import torch\nz = torch.ones(2, 2) * 27")
    out = ipy.run_cell("z").output
    assert out == "Out[2]: \ntensor([[27., 27.],\n        [27., 27.]])\n"


def test_ipython_default_repr_drops_the_word_object(ipy):
    ipy.run_cell("import torch\nx = torch.ones(2, requires_grad=True)\ny = x + 2")
    out = ipy.run_cell("y.grad_fn").output
    assert re.fullmatch(r"Out\[2\]: <AddBackward0 at 0x[0-9a-f]+>\n", out), out
    ipy.run_cell("class A:\n    pass")
    assert re.fullmatch(r"Out\[4\]: <__main__\.A at 0x[0-9a-f]+>\n", ipy.run_cell("A()").output)
    assert ipy.run_cell("A").output == "Out[5]: __main__.A\n"
    ipy.run_cell("def f(a, b=2):\n    pass")
    assert ipy.run_cell("f").output == "Out[7]: <function __main__.f(a, b=2)>\n"


def test_legacy_ipython_display_matches_seed_000():
    s = Session(viz=False, style="legacy", prompt="ipython")
    s.run_cell("import torch\nfrom torch.autograd import Variable")
    s.run_cell("x = Variable(torch.ones(2,2), requires_grad=True)\ny = x + 2\nz = y*y*3")
    out = s.run_cell("z").output
    assert out == (
        "Out[3]: \nVariable containing:\n 27  27\n 27  27\n[torch.FloatTensor of size 2x2]\n"
    )
    out = s.run_cell("y.grad_fn").output
    assert norm(out) == "Out[4]: <torch.autograd.function.AddConstantBackward at 0x…>\n"


# --- errors ---------------------------------------------------------------------------


def test_traceback_shows_only_learner_code(session):
    session.run_cell("def f(a):\n    return g(a)\n\ndef g(a):\n    return a / 0\n")
    out = session.run_cell("y = 3\nf(y)").output
    assert out == (
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 2, in <module>\n'
        "    f(y)\n"
        '  File "<stdin>", line 2, in f\n'
        "    return g(a)\n"
        '  File "<stdin>", line 5, in g\n'
        "    return a / 0\n"
        "ZeroDivisionError: division by zero\n"
    )


def test_torch_errors_keep_pytorchs_words(session, real_torch):
    session.run_cell("import torch\nx = torch.ones(3, requires_grad=True)\ny = x * 2")
    out = session.run_cell("y.backward()").output
    x = real_torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        (x * 2).backward()
    expected = f"RuntimeError: {info.value}"
    assert out == (
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        "    y.backward()\n" + expected + "\n"
    )


def test_chained_exceptions_from_learner_code(session):
    out = session.run_cell(
        "try:\n    1 / 0\nexcept ZeroDivisionError:\n    raise ValueError('bad')"
    ).output
    assert "ZeroDivisionError: division by zero" in out
    assert "During handling of the above exception, another exception occurred:" in out
    assert out.endswith("ValueError: bad\n")
    out = session.run_cell(
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    raise ValueError('x') from e"
    ).output
    assert "The above exception was the direct cause of the following exception:" in out


@pytest.mark.parametrize(
    "source",
    [
        "x = (",
        "x = )",
        "for i in range(3)\n    pass",
        "def f(:\n  pass",
        "  x = 1",
        "x = 1 +",
        "if True:",
        "def f():\nreturn 1",
        "if x:\n    pass\n  else:\n    pass",
    ],
)
def test_syntax_errors_print_as_python_does(session, source):
    result = session.run_cell(source + "\n")
    try:
        compile(source + "\n", "<stdin>", "exec")
    except SyntaxError as exc:
        expected = "".join(traceback.format_exception_only(type(exc), exc))
    assert result.output == expected
    assert isinstance(result.error, SyntaxError)
    assert session.run_cell("1").output == "1\n"


def test_compile_time_errors_after_parsing(session):
    out = session.run_cell("x = 1\nreturn x").output
    assert out.endswith("SyntaxError: 'return' outside function\n")
    assert "x" not in session.namespace  # nothing ran


def test_syntax_warnings_print_as_python_does(session):
    out = session.run_cell("x = 1\nx is 1").output
    assert out == '<stdin>:2: SyntaxWarning: "is" with a literal. Did you mean "=="?\nTrue\n'


def test_undefined_name(session):
    out = session.run_cell("undefined_thing + 1").output
    assert out.endswith("NameError: name 'undefined_thing' is not defined\n")


def test_runtime_refusal_reports_the_learner_line(session):
    session.run_cell("def f(a):\n    return a.__len__\n") if False else None
    session.run_cell("import numpy as np\ndef peek(a):\n    return a.ctypes\n")
    out = session.run_cell("x = np.ones(2)\npeek(x)").output
    assert (
        out
        == "gradshell: attribute 'ctypes' of 'numpy.ndarray' objects is not available here (line 3)\n"
    )


def test_null_bytes_and_junk_do_not_crash(session):
    for junk in ["\x00", "x = '\x00'", "\udcff", "😀 = 1", "\\", "'''", "@", "%%%%"]:
        result = session.run_cell(junk)
        assert isinstance(result, CellResult)
    assert session.run_cell("1 + 2").output == "3\n"


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(max_size=60))
def test_run_cell_never_raises(session, text):
    session.run_cell("keep = 41")
    result = session.run_cell(text)
    assert isinstance(result, CellResult)
    assert session.run_cell("keep + 1").output == "42\n"


# --- warnings -------------------------------------------------------------------------


def test_non_leaf_grad_warning_prints_as_python_does(session, real_torch):
    import warnings

    session.run_cell("import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2")
    out = session.run_cell("y.grad").output
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (real_torch.ones(2, requires_grad=True) * 2).grad  # noqa: B018
    assert out == f"<stdin>:1: UserWarning: {caught[0].message}\n"
    # Python's default rule: once per location
    assert session.run_cell("y.grad").output == ""
    assert session.run_cell("z = 1\ny.grad").output.startswith("<stdin>:2: UserWarning")


# --- completeness ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "source,complete",
    [
        ("x = 1", True),
        ("x = (1,", False),
        ("if x:", False),
        ("if x:\n    y = 1", False),
        ("if x:\n    y = 1\n", True),
        ("for i in range(3): i", False),
        ("for i in range(3): i\n", True),
        ("def f():\n    return 1\n\n", True),
        ("'''abc", False),
        ("x = 1 \\", False),
        ("x = )", True),
        ("@dec", False),
        ("x = 1\ny = 2", True),
        ("%who", True),
        ("", True),
        ("# just a comment", True),
        ("if x:\n    y\nelse:", False),
    ],
)
def test_is_complete(session, source, complete):
    assert session.is_complete(source) is complete


# --- styles and misc ------------------------------------------------------------------


def test_style_switch_changes_printing(session):
    session.run_cell("import torch\nfrom torch.autograd import Variable")
    session.run_cell("x = Variable(torch.ones(2, 2), requires_grad=True)")
    assert "tensor([[1., 1.]" in session.run_cell("x").output
    session.run_cell("%style legacy")
    assert session.run_cell("x").output.startswith("Variable containing:\n")
    session.run_cell("%style modern")
    assert "requires_grad=True" in session.run_cell("x").output


def test_style_is_applied_per_session():
    legacy = Session(viz=False, style="legacy")
    modern = Session(viz=False)
    legacy.run_cell("import torch\nx = torch.ones(2, requires_grad=True)")
    modern.run_cell("import torch\nx = torch.ones(2, requires_grad=True)")
    assert legacy.run_cell("x").output.startswith("Variable containing:")
    assert modern.run_cell("x").output.startswith("tensor(")
    assert legacy.run_cell("x").output.startswith("Variable containing:")


def test_exit_ends_the_session(session):
    assert session.run_cell("exit").output == "Use exit() or Ctrl-D (i.e. EOF) to exit\n"
    result = session.run_cell("print('bye')\nexit(3)\nprint('not reached')")
    assert result.exit_code == 3
    assert result.output == "bye\n"


def test_name_is_main(session):
    assert session.run_cell("if __name__ == '__main__':\n    print('run')").output == "run\n"


def test_nn_module_subclass(session):
    pytest.importorskip("gradshell.torch.nn")
    source = (
        "import torch\nimport torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.scale = nn.Parameter(torch.ones(2))\n"
        "    def forward(self, x):\n"
        "        return (x * self.scale).sum()\n"
        "net = Net()\n"
        "out = net(torch.ones(2))\n"
        "out.backward()\n"
        "print(net.scale.grad)\n"
    )
    result = session.run_cell(source)
    assert result.error is None, result.output
    assert result.output == "tensor([1., 1.])\n"


def test_torch_imports(session):
    pytest.importorskip("gradshell.torch.nn")
    pytest.importorskip("gradshell.torch.optim")
    source = (
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        "import torch.optim as optim\nfrom torch import nn as nn2\n"
        "from torch.autograd import Variable\nimport numpy as np\nimport math\n"
        "print(nn is nn2, callable(Variable), callable(F.relu), callable(optim.SGD))"
    )
    result = session.run_cell(source)
    assert result.error is None, result.output
    assert result.output == "True True True True\n"


def test_no_grad_context_and_decorator(session):
    source = (
        "import torch\nx = torch.ones(2, requires_grad=True)\n"
        "with torch.no_grad():\n    y = x * 2\n"
        "@torch.no_grad()\ndef f(t):\n    return t * 3\n"
        "print(y.requires_grad, f(x).requires_grad, (x * 2).requires_grad)"
    )
    result = session.run_cell(source)
    assert result.error is None, result.output
    assert result.output == "False False True\n"


def test_from_numpy_and_back(session):
    source = (
        "import torch\nimport numpy as np\n"
        "a = np.array([1, 2, 3], dtype=np.float64)\nx = torch.from_numpy(a)\n"
        "x.requires_grad = True\nprint(x)\nprint(x.detach().numpy().tolist())"
    )
    result = session.run_cell(source)
    assert result.error is None, result.output
    assert (
        result.output
        == "tensor([1., 2., 3.], dtype=torch.float64, requires_grad=True)\n[1.0, 2.0, 3.0]\n"
    )


def test_unsafe_mode_runs_plain_python_with_gradshell_torch():
    s = Session(viz=False, unsafe=True)
    out = s.run_cell("import os\nimport torch\nprint(torch.__name__, os.sep)").output
    assert out == "gradshell.torch /\n"
    assert s.run_cell("(1).__class__").output == "<class 'int'>\n"
    assert s.run_cell("import sys\nsys.exit(7)").exit_code == 7
    assert s.run_cell("exit(2)").exit_code == 2


def test_prints_and_values_interleave_in_order(session):
    out = session.run_cell("print('a')\n1\nprint('b')").output
    assert out == "a\n1\nb\n"


def test_stream_mirrors_output_live():
    import io

    live = io.StringIO()
    s = Session(viz=False, stream=live)
    result = s.run_cell("print('hello')\n2 + 2")
    assert live.getvalue() == result.output == "hello\n4\n"


def test_after_cell_hooks_write_the_visual_channel(session):
    session.after_cell.append(lambda s, r: "panel\n" if "backward" in r.source else None)
    session.run_cell("import torch\nx = torch.ones(1, requires_grad=True)")
    result = session.run_cell("x.sum().backward()")
    assert result.visual == "panel\n"
    assert result.output == ""


def test_torch_save_and_load_in_process_stay_in_the_session_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    s = Session(viz=False)
    assert s.run_cell("import torch\ntorch.save(torch.ones(2), 'a.pt')").output == ""
    assert s.run_cell("torch.load('a.pt')").output == "tensor([1., 1.])\n"
    refused = s.run_cell("torch.save(torch.ones(2), '../outside.pt')").output
    assert "outside the session directory" in refused
    assert not (tmp_path.parent / "outside.pt").exists()


def test_magic_lines_run_in_order_with_a_cells_code():
    """IPython's cell rules in every session: `%style legacy` then the code, and a magic
    after code; line numbers of the code are the cell's."""
    from gradshell.shell.session import Session

    session = Session(viz=False, prompt="ipython")
    result = session.run_cell(
        "%style legacy\nimport torch\nfrom torch.autograd import Variable\n"
        "x = Variable(torch.ones(2), requires_grad=True)\nx"
    )
    assert "Variable containing:" in result.output and session.style == "legacy"
    assert session.execution_count == 1
    result = session.run_cell("a = 1\n%who\nb = a +\n")
    assert "SyntaxError" in result.output and "line 3" in result.output
    assert session.execution_count == 2


def test_a_program_run_with_c_may_hold_magic_lines(tmp_path):
    import subprocess
    import sys

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gradshell",
            "-c",
            "%style legacy\nimport torch\nprint(torch.ones(1))\n1/0",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert "[torch.FloatTensor of size 1]" in done.stdout
    assert 'File "<string>", line 4, in <module>' in done.stderr + done.stdout
