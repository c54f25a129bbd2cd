"""help(), help(torch.ones) and `x?`: PyTorch-style documentation for what gradshell
supports, in a session and in the REPL."""

from __future__ import annotations

import pytest

from gradshell.shell.completion import describe_name
from gradshell.shell.help import DOCS, doc_name, help_text
from gradshell.shell.repl import inspect_request
from gradshell.shell.session import Session


@pytest.fixture
def s():
    session = Session()
    assert session.run_cell("import torch").error is None
    return session


def test_help_with_no_argument_says_how_to_get_help(s):
    out = s.run_cell("help()").output
    assert "help(torch.ones)" in out and "%help" in out and "x?" in out


def test_help_on_a_function_shows_pytorchs_signature_and_words(s):
    out = s.run_cell("help(torch.ones)").output
    assert "ones(*size, *, out=None, dtype=None, layout=torch.strided" in out
    assert "Returns a tensor filled with the scalar value 1" in out


def test_help_on_a_bound_method_finds_the_tensor_method(s):
    s.run_cell("x = torch.ones(2, requires_grad=True)")
    out = s.run_cell("help(x.backward)").output
    assert out.startswith("Help on torch.Tensor.backward:")
    assert "accumulates gradients in the leaves" in out


def test_help_on_something_without_a_page_uses_its_own_docstring(s):
    out = s.run_cell("help(torch.sigmoid)").output
    assert out.startswith("Help on ") and "Error" not in out


def test_every_documented_name_exists_in_gradshell():
    for name in DOCS:
        obj = __import__("gradshell.shell.help", fromlist=["_resolve"])._resolve(name)
        assert doc_name(obj) == name
        assert help_text(obj).startswith(f"Help on {name}:")


def test_object_help_requests_are_recognised():
    assert inspect_request("x?") == "x"
    assert inspect_request("torch.ones??") == "torch.ones"
    assert inspect_request("?x.backward") == "x.backward"
    assert inspect_request("x ? 1") is None and inspect_request("print(x)") is None


def test_question_mark_in_the_repl(tmp_path):
    pytest.importorskip("pexpect")
    import re

    from support.terminal import Terminal

    prompt = re.compile(r">>>\s*$")
    t = Terminal(tmp_path / "data")
    try:
        t.read_until(prompt)
        t.type("import torch", prompt)
        t.type("x = torch.ones(2, requires_grad=True)", prompt)
        screen = t.type("torch.ones?", prompt)
        assert "Signature:   ones(*size" in screen and "SyntaxError" not in screen
        screen = t.type("x?", prompt)
        assert "Type:        Tensor" in screen and "String form: tensor([1., 1.]" in screen
        screen = t.type("help(x.backward)", prompt)
        assert "Computes the gradient of current tensor wrt graph leaves." in screen
        assert "not available" not in screen
        assert "Object `nope` not found." in t.type("nope?", prompt)
    finally:
        t.kill()


def _public_callables(session):
    torch = session.namespace["torch"]
    for owner, prefix in ((torch, "torch."), (torch.Tensor, "torch.Tensor.")):
        for name in dir(owner):
            if name.startswith("_"):
                continue
            try:
                obj = getattr(owner, name)
            except Exception:
                continue
            if callable(obj) and not isinstance(obj, type):
                yield prefix + name, obj


def test_every_public_function_and_method_has_a_docstring_of_its_own():
    """help() shows each op's own documentation: never nothing, never a wrapper's."""
    from gradshell.shell.help import help_text
    from gradshell.shell.torch_sizes import SizedTorchCall

    session = Session(viz=False)
    session.run_cell("import torch")
    wrapper = SizedTorchCall.__doc__.strip()
    bare = []
    for qualified, obj in _public_callables(session):
        text = help_text(obj)
        if wrapper in text or text.rstrip().endswith(".") and "\n\n" not in text:
            bare.append(qualified)
    assert bare == [], f"no documentation of their own: {bare[:20]}"


def test_help_and_question_mark_show_a_wrapped_functions_own_documentation():
    session = Session(viz=False)
    session.run_cell("import torch\nx = torch.ones(2, 2)")
    assert "checked first" not in session.run_cell("help(torch.add)").output
    described = describe_name(session, "torch.matmul")
    assert described.startswith("Type:        function")
    assert "Matrix product" in described


def test_piped_input_answers_a_question_mark(tmp_path):
    import io

    from gradshell.shell.batch import run_piped

    session = Session(viz=False)
    out = io.StringIO()
    run_piped(session, ["import torch\n", "torch.matmul?\n"], out, io.StringIO())
    assert ">>> torch.matmul?\nType:        function\n" in out.getvalue()


def test_completion_kinds_are_ipythons():
    from gradshell.shell.completion import complete

    session = Session(viz=False)
    session.run_cell("import torch\nimport math\nx = torch.ones(2)")
    kinds = {name: kind for name, _, kind in complete(session, "x.gr")}
    assert kinds["grad"] == "property" and kinds["greater"] == "function"
    kinds = {name: kind for name, _, kind in complete(session, "torch.")}
    assert kinds["Tensor"] == "class" and kinds["nn"] == "module" and kinds["add"] == "function"
    assert {name: kind for name, _, kind in complete(session, "math.p")}["pi"] == "float"
