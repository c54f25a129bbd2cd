"""A script's traceback is Python's: the same lines, and the same position marks (`~~^^^`)
under the failing expression, though the shell runs a rewritten, guarded copy of the code.
Each program is plain Python, run by this interpreter and by `gradshell FILE`."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gradshell.shell.session import Session

PROGRAMS = {
    "subscript": 'd = {"a": 1}\nprint(d["a"] + d["b"])\n',
    "division": "x = 1\ny = (x + 2) / (x - 1)\n",
    "nested_call": "def f(d):\n    return d['k'] + 1\n\nprint(f({}))\n",
    "method_chain": "x = ('a b'\n     .split()\n     .index('c'))\n",
    "attribute_chain": "import math\nx = (math\n     .pi\n     .nope)\n",
    "method_in_method": (
        "class A:\n    def f(self):\n        return (self\n          .g())\n\nA().f()\n"
    ),
    "comprehension": "xs = [1, 2]\nys = [xs[i] * 2 for i in range(3)]\n",
    "binop": "a = [1]\nb = 'x'\nc = len(a) + b\n",
    "lambda": "f = lambda t: t.upper() + 1\nf('a')\n",
    "deep": (
        "def a(n):\n    return b(n) * 2\n\ndef b(n):\n    return [0][n]\n\n"
        "for i in range(3):\n    a(i)\n"
    ),
    "raise_from": (
        "try:\n    {}['x']\nexcept KeyError as e:\n    raise ValueError('bad key') from e\n"
    ),
}


def _python(path) -> str:
    done = subprocess.run(
        [sys.executable, path.name], capture_output=True, text=True, cwd=path.parent, check=False
    )
    return done.stdout + done.stderr.replace(str(path), path.name)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_script_traceback_is_pythons(name, tmp_path):
    path = tmp_path / f"{name}.py"
    path.write_text(PROGRAMS[name])
    shown = Session(viz=False).run_script(PROGRAMS[name], path.name).output
    assert shown == _python(path)


def test_the_interactive_prompt_marks_no_positions():
    # Python's REPL has no source file to mark, so it shows no `^^^` lines either
    out = Session(viz=False).run_script('d = {}\nd["k"]\n', "<stdin>").output
    assert "Traceback (most recent call last):" in out
    assert "^" not in out and "~" not in out
