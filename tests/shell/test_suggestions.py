"""`Did you mean: ...?`: gradshell's suggestions are CPython's, on every Python."""

from __future__ import annotations

import contextlib
import io
import sys
import types

from hypothesis import given, settings
from hypothesis import strategies as st

from gradshell.shell.session import Session
from gradshell.shell.suggestions import suggestion

#: Names to misspell; a standard-library module's name also gets Python 3.12's "did you
#: forget to import" (tested on its own below), which this interpreter may not add.
NAMES = st.text(alphabet="abcdeABCDE_", min_size=1, max_size=9).filter(
    lambda name: name not in sys.stdlib_module_names
)


def _pythons_suggestion(exc: BaseException) -> str:
    """What this interpreter's own excepthook adds to the error's last line."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        sys.__excepthook__(type(exc), exc, exc.__traceback__)
    last = err.getvalue().rstrip("\n").splitlines()[-1]
    return last.split("is not defined", 1)[-1] if "is not defined" in last else ""


@settings(max_examples=300, deadline=None)
@given(wrong=NAMES, candidates=st.lists(NAMES, min_size=1, max_size=12, unique=True))
def test_attribute_suggestions_are_cpythons(wrong, candidates):
    """The nearest attribute, as CPython's own search finds it (its excepthook on 3.11
    uses the same rules as 3.12's traceback module)."""
    obj = types.SimpleNamespace(**{c: 0 for c in candidates})
    try:
        getattr(obj, wrong)
    except AttributeError as exc:
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            sys.__excepthook__(type(exc), exc, exc.__traceback__)
        last = err.getvalue().rstrip("\n").splitlines()[-1]
        theirs = last.split(f"attribute '{wrong}'", 1)[1]
        assert suggestion(exc) == theirs
    else:
        assert wrong in candidates


@settings(max_examples=200, deadline=None)
@given(wrong=NAMES, candidates=st.lists(NAMES, min_size=1, max_size=12, unique=True))
def test_name_suggestions_are_cpythons(wrong, candidates):
    scope = {c: 0 for c in candidates}
    scope["__builtins__"] = {}
    try:
        eval(wrong, scope)  # noqa: S307 - a name, nothing else
    except NameError as exc:
        assert suggestion(exc) == _pythons_suggestion(exc)


def test_the_shell_suggests_among_what_the_learner_can_use():
    session = Session(viz=False)
    assert session.run_cell("prnt(1)").output.endswith(
        "NameError: name 'prnt' is not defined. Did you mean: 'print'?\n"
    )
    session.run_cell("learning_rate = 0.1")
    assert "Did you mean: 'learning_rate'?" in session.run_cell("learnig_rate").output
    text = session.run_cell("import torch\nx = torch.ones(2)\nx.gradd").output
    assert text.endswith("has no attribute 'gradd'. Did you mean: 'grad'?\n")


def test_python_312s_additions():
    session = Session(viz=False)
    assert session.run_cell("math.pi").output.endswith(
        "NameError: name 'math' is not defined. Did you forget to import 'math'\n"
    )
    session.run_cell(
        "class Net:\n    def __init__(self):\n        self.w = 1\n    def f(self):\n"
        "        return w\n"
    )
    assert "Did you mean: 'self.w'?" in session.run_cell("Net().f()").output
