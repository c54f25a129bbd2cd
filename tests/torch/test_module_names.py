"""Modules print under PyTorch's names: `print(torch)` and `type(torch)` never show a
gradshell path, in plain Python or in the shell, and the shell still treats them as the
modules they are."""

from __future__ import annotations

import types

from gradshell import torch as gtorch
from gradshell.shell.session import Session


def _shell(program: str) -> str:
    return Session(viz=False).run_script(program, "names.py").output


def test_torch_modules_print_as_torch():
    import gradshell.torch.nn.functional as functional

    assert repr(gtorch) == "<module 'torch' (gradshell)>"
    assert repr(gtorch.nn) == "<module 'torch.nn' (gradshell)>"
    assert repr(functional) == "<module 'torch.nn.functional' (gradshell)>"
    assert repr(type(gtorch)) == "<class 'module'>"
    assert isinstance(gtorch, types.ModuleType)


def test_in_the_shell():
    out = _shell(
        "import torch\nimport torch.nn as nn\nimport math\n"
        "print(torch)\nprint(nn)\nprint(type(torch))\nprint(type(math))\n"
        "print(torch.__name__, nn.__name__)\n"
    )
    assert out.splitlines() == [
        "<module 'torch' (gradshell)>",
        "<module 'torch.nn' (gradshell)>",
        "<class 'module'>",
        "<class 'module'>",
        "torch torch.nn",
    ]
    assert "gradshell." not in out


def test_module_classes_cannot_be_called_from_the_shell():
    out = _shell("import torch\nimport math\ntype(torch)('torch.x')\n")
    assert "calling class 'module' is not available here" in out
    out = _shell("import math\ntype(math)('x')\n")
    assert "calling class 'module' is not available here" in out
    assert "gradshell." not in out


def test_module_attributes_still_follow_the_sandbox():
    out = _shell("import torch\nprint(torch.__file__)\n")
    assert "not available here" in out
