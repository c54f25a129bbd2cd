"""PyTorch's warn-once warnings: `float(x)` of a tensor that requires grad warns the first
time in a process only (a second conversion on another line is silent), `int`, `.item()`
and f-strings never warn; a session is the learner's process. Compared with PyTorch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support import oracle

from gradshell.shell.session import Session

PROGRAM = """\
import math
import torch
x = torch.ones(2, requires_grad=True)
s = x.sum()
print(int(s), s.item(), f"{s:.2f}")
print(float(s))
print(float(s), complex(s), math.exp(s), "%f" % s)
print(float(x[0].detach()))
"""


def _pytorch_run(folder: Path) -> list[str]:
    (folder / "scalars.py").write_text(PROGRAM, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "scalars.py"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        cwd=folder,
    )
    return [done.stdout, done.stderr.replace(f"{folder}/", "")]  # Python names the full path


def test_a_scalar_of_a_tensor_that_requires_grad_warns_once_as_pytorch_does(tmp_path):
    run = lambda _torch: _pytorch_run(tmp_path)  # noqa: E731
    stdout, stderr = oracle.computed("warn-once program", run, oracle.torch())
    ours = Session(viz=False).run_script(PROGRAM, "scalars.py").output
    warning = stderr
    assert "UserWarning: Converting a tensor with requires_grad=True" in warning
    first, rest = stdout.split("\n", 1)
    # the warning comes while line 6 runs, before it prints
    assert ours == f"{first}\n{warning}{rest}"


def test_each_session_is_a_new_process():
    first, second = Session(viz=False), Session(viz=False)
    code = "import torch\nx = torch.ones(1, requires_grad=True)\nprint(float(x))\n"
    assert "UserWarning" in first.run_script(code, "a.py").output
    assert "UserWarning" not in first.run_script(code, "b.py").output
    assert "UserWarning" in second.run_script(code, "c.py").output
    assert "UserWarning" not in first.run_script(code, "d.py").output


def test_the_legacy_style_does_not_warn():
    session = Session(viz=False, style="legacy")
    out = session.run_script(
        "import torch\nx = torch.ones(1, requires_grad=True)\nprint(float(x))\n", "a.py"
    ).output
    assert out == "1.0\n"


TRANSPOSE_PROGRAM = """\
import torch
x = torch.ones(2, 3, 4, requires_grad=True)
print(x.T.shape, x.T.grad_fn.name())
print(torch.ones(3).T)
print(torch.tensor(2.0, requires_grad=True).T)
print(torch.ones(2, 3).T.shape)
"""


def test_transposing_other_than_a_matrix_warns_once_as_pytorch_does(tmp_path):
    def run(_torch):
        (tmp_path / "transpose.py").write_text(TRANSPOSE_PROGRAM, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-W", "default", "transpose.py"],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
            cwd=tmp_path,
        )
        return [done.stdout, done.stderr.replace(f"{tmp_path}/", "")]

    stdout, stderr = oracle.computed("x.T warnings program", run, oracle.torch())
    ours = Session(viz=False).run_script(TRANSPOSE_PROGRAM, "transpose.py").output
    assert "x.mT" in stderr and "0-D tensors" in stderr
    lines = ours.splitlines(keepends=True)
    assert "".join(line for line in lines if "Warning" in line or line.startswith("  ")) == stderr
    assert (
        "".join(line for line in lines if not ("Warning" in line or line.startswith("  ")))
        == stdout
    )
