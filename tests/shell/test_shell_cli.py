"""The `gradshell` command: -c, FILE, piped stdin, options, exit statuses."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import gradshell
from gradshell.shell import cli

SEED000_INPUTS = """import torch
from torch.autograd import Variable

x = Variable(torch.ones(2,2), requires_grad=True)
y = x + 2
y.grad_fn
y.grad

z = y*y*3
z.grad_fn
z
out = z.mean()
out.grad_fn
out.backward()   # scalar output: no argument needed
x.grad
out  # a scalar
"""


def gs(*args: str, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "gradshell", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def test_version_and_help():
    r = gs("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"gradshell {gradshell.__version__}"
    r = gs("--help")
    assert r.returncode == 0
    for option in ("-c CODE", "--style", "--prompt", "--unsafe", "--version", "replay"):
        assert option in r.stdout


def test_usage_errors_exit_2():
    assert gs("--style", "purple").returncode == 2
    assert gs("--bogus").returncode == 2
    r = gs("/nonexistent/prog.py")
    assert r.returncode == 2 and "can't open file" in r.stderr
    assert gs("-c", "1", "file.py").returncode == 2


def test_dash_c_runs_and_exit_status():
    r = gs("-c", "import torch\nx = torch.ones(2, requires_grad=True)\nprint((x * 2).sum())")
    assert r.returncode == 0
    assert r.stdout == "tensor(4., grad_fn=<SumBackward0>)\n"
    r = gs("-c", "print('before')\n1 / 0")
    assert r.returncode == 1
    assert r.stdout == "before\n"
    assert r.stderr.endswith(
        '  File "<string>", line 2, in <module>\n    1 / 0\nZeroDivisionError: division by zero\n'
    )
    r = gs("-c", "import subprocess")
    assert r.returncode == 1 and r.stderr.startswith("gradshell: import of 'subprocess'")
    r = gs("-c", "exit(4)")
    assert r.returncode == 4


def test_script_file_with_main_guard(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(
        "import torch\n\ndef my_grad():\n    x = torch.tensor(1.0, requires_grad=True)\n"
        "    y = x ** 2\n\n    y.backward()\n    print(x.grad)\n\n"
        'if __name__ == "__main__":\n    my_grad()\n'
    )
    r = gs(str(path))
    assert r.returncode == 0, r.stderr
    assert r.stdout == "tensor(2.)\n"


def test_script_traceback_names_the_file(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text("x = 1\ny = x / 0\n")
    r = gs(str(path))
    assert r.returncode == 1
    assert f'File "{path}", line 2, in <module>\n    y = x / 0\n' in r.stderr


def test_piped_stdin_prints_a_transcript():
    r = gs(stdin=SEED000_INPUTS + "y.backward()\n")
    assert r.returncode == 1  # the last input raised
    text = re.sub(r"0x[0-9a-f]+", "0x…", r.stdout)
    expected_start = (
        ">>> import torch\n>>> from torch.autograd import Variable\n\n"
        ">>> x = Variable(torch.ones(2,2), requires_grad=True)\n>>> y = x + 2\n"
        ">>> y.grad_fn\n<AddBackward0 object at 0x…>\n>>> y.grad\n"
    )
    assert text.startswith(expected_start), text
    assert ">>> z\ntensor([[27., 27.],\n        [27., 27.]], grad_fn=<MulBackward0>)\n" in text
    assert ">>> x.grad\ntensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])\n" in text
    assert "<stdin>:1: UserWarning: The .grad attribute of a Tensor that is not a leaf" in text


def test_piped_legacy_style_matches_seed_000():
    r = gs("--style", "legacy", stdin=SEED000_INPUTS)
    assert r.returncode == 0, r.stdout
    text = re.sub(r"0x[0-9a-f]+", "0x…", r.stdout)
    assert ">>> y.grad_fn\n<torch.autograd.function.AddConstantBackward object at 0x…>\n" in text
    assert (
        ">>> z\nVariable containing:\n 27  27\n 27  27\n[torch.FloatTensor of size 2x2]\n\n" in text
    )
    assert ">>> out  # a scalar\nVariable containing:\n 27\n[torch.FloatTensor of size 1]\n" in text


def test_piped_ipython_prompts():
    r = gs("--prompt", "ipython", stdin="x = 2\nx * 3\nfor i in range(2):\n    i\n")
    assert (
        r.stdout
        == "In [1]: x = 2\n\nIn [2]: x * 3\nOut[2]: 6\n\nIn [3]: for i in range(2):\n   ...:     i\n   ...:\n"
    )


def test_piped_errors_do_not_stop_the_session():
    r = gs(stdin="a = 1\nimport subprocess\nb = ().__dict__\na + 1\n")
    assert r.returncode == 1
    assert r.stdout.endswith(">>> a + 1\n2\n")


def test_unsafe_flag(tmp_path):
    r = gs("--unsafe", "-c", "import os, torch\nprint(os.sep, torch.__name__)")
    assert r.returncode == 0
    assert r.stdout == "/ gradshell.torch\n"
    assert "UNSAFE" in r.stderr


def test_programs_show_visual_panels_only_with_viz():
    pytest.importorskip("gradshell.viz.magics")
    code = "import torch\nx = torch.ones(2, requires_grad=True)\n(x * 3).sum().backward()"
    r = gs("-c", code)
    assert r.returncode == 0 and r.stderr == ""
    r = gs("--viz", "-c", code)
    assert r.returncode == 0 and "x.grad" in r.stderr and r.stdout == ""


def test_time_limit_option():
    r = gs("--time-limit", "0.5", "-c", "while True:\n    pass")
    assert r.returncode == 1
    assert "time limit" in r.stderr


def test_max_elements_option():
    r = gs("--max-elements", "100", "-c", "import numpy as np\nnp.zeros(1000)")
    assert r.returncode == 1
    assert "over the limit of 100 elements" in r.stderr


def test_subcommand_dispatch(monkeypatch):
    calls = []

    class FakeModule:
        @staticmethod
        def main(argv):
            calls.append(argv)
            return 3

    monkeypatch.setattr(cli.importlib, "import_module", lambda name: FakeModule)
    assert cli.main(["replay", "a.gsh", "--update"]) == 3
    assert calls == [["a.gsh", "--update"]]


def test_subcommand_missing(monkeypatch, capsys):
    def missing(name):
        raise ImportError(name)

    monkeypatch.setattr(cli.importlib, "import_module", missing)
    assert cli.main(["learn"]) == 2
    assert "not available" in capsys.readouterr().err


def test_banner_names_version_style_device():
    text = cli.banner("legacy", "ipython", unsafe=True)
    assert gradshell.__version__ in text
    assert "style: legacy" in text and "device: cpu" in text and "UNSAFE" in text


@pytest.mark.parametrize("entry", [["-m", "gradshell"]])
def test_python_dash_m(entry):
    r = subprocess.run(
        [sys.executable, *entry, "-c", "print(6 * 7)"], capture_output=True, text=True, timeout=60
    )
    assert r.stdout == "42\n"


def test_dash_c_does_not_import_the_repl_stack():
    code = "import sys\nimport gradshell.shell.cli as c\nc.main(['-c', '1'])\nprint('prompt_toolkit' in sys.modules, 'rich' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "False False"


def test_console_script_declared():
    text = Path(gradshell.__file__).parent.parent.joinpath("pyproject.toml").read_text()
    assert 'gradshell = "gradshell.shell.cli:main"' in text


def test_arrays_from_tensors_answer_without_importing_numpy():
    # a fresh process: NumPy's allow-lists come with torch, not only with `import numpy`
    r = gs("-c", "import torch\na = torch.arange(3).numpy()\nprint(a.dtype, a.shape, a.round(2))")
    assert r.stdout == "int64 (3,) [0 1 2]\n", r.stdout + r.stderr


def test_a_script_is_named_by_its_absolute_path_as_python_names_it(tmp_path):
    (tmp_path / "rel.py").write_text("x = 1\ny = x / 0\n")
    r = subprocess.run(
        [sys.executable, "-m", "gradshell", "rel.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert f'File "{tmp_path / "rel.py"}", line 2, in <module>\n' in r.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "gradshell", "nope.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert f"can't open file '{tmp_path / 'nope.py'}'" in missing.stderr
