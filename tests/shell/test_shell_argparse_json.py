"""argparse, json and vars() in learner code behave as in Python: a script's parser reads
the script's own (empty) command line and names the program after the script, `--help`
and errors end the program as Python's would; and what stays closed says so."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gradshell.shell.session import Session

PROGRAMS = {
    "parser": (
        "import argparse\n"
        "p = argparse.ArgumentParser(description='demo',\n"
        "    formatter_class=argparse.ArgumentDefaultsHelpFormatter)\n"
        "p.add_argument('--batch-size', type=int, default=64, metavar='N', help='batch')\n"
        "p.add_argument('--no-cuda', action='store_true', default=False)\n"
        "g = p.add_mutually_exclusive_group()\n"
        "g.add_argument('--a', action='store_true')\n"
        "p.add_argument('--layers', nargs='+', type=int, default=[1, 2])\n"
        "args = p.parse_args()\n"
        "print(args, args.batch_size, vars(args))\n"
        "print(p.parse_args(['--layers', '3', '4']).layers)\n"
        "print(type(p), type(args))\n"
        "p.print_help()\n"
    ),
    "parser_error_exits": (
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('--lr', type=float)\n"
        "p.parse_args(['--bogus'])\nprint('not reached')\n"
    ),
    "parser_help_exits": (
        "import argparse\np = argparse.ArgumentParser(prog='train')\np.parse_args(['-h'])\n"
        "print('not reached')\n"
    ),
    "json": (
        "import json\nprint(json.loads('{\"x\": [1, 2.5, null]}'))\n"
        "print(json.dumps({'b': 1, 'a': [1, 2]}, indent=2, sort_keys=True))\n"
        "try:\n    json.loads('{bad')\nexcept json.JSONDecodeError as e:\n    print(e)\n"
    ),
    "vars_of_own_objects": (
        "class A:\n    def __init__(self):\n        self.x = 1\n\nprint(vars(A()))\n"
    ),
}


def _python(path) -> tuple[str, int]:
    done = subprocess.run(
        [sys.executable, path.name], capture_output=True, text=True, cwd=path.parent, check=False
    )
    return done.stdout + done.stderr, done.returncode


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_runs_as_in_python(name, tmp_path):
    path = tmp_path / f"prog_{name}.py"
    path.write_text(PROGRAMS[name])
    expected, code = _python(path)
    result = Session(viz=False).run_script(PROGRAMS[name], path.name)
    assert result.output == expected
    assert (result.exit_code or 0) == code


@pytest.mark.parametrize(
    "code",
    [
        "import argparse\nargparse.ArgumentParser(fromfile_prefix_chars='@')\n",
        "import argparse\np = argparse.ArgumentParser()\np._actions\n",
        "vars()\n",
        "import torch\nvars(torch)\n",
        "import torch\nvars(torch.ones)\n",
        "import torch\nvars(torch.Tensor)\n",
    ],
)
def test_what_stays_closed_says_so(code):
    out = Session(viz=False).run_script(code, "closed.py").output
    assert "not available here" in out
