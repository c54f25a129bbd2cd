"""A PyTorch name gradshell lacks raises "gradshell does not support torch.X yet" (a
NotImplementedError that `hasattr` and `getattr(..., default)` still treat as missing);
a name PyTorch lacks too raises PyTorch's own AttributeError."""

from __future__ import annotations

import pytest

from gradshell import torch
from gradshell.shell.session import Session
from gradshell.torch._torch_names import PUBLIC


@pytest.mark.parametrize(
    "owner,name,api",
    [
        ("torch", "fft", "torch.fft"),
        ("torch", "compile", "torch.compile"),
        ("torch.nn", "Conv3d", "torch.nn.Conv3d"),
        ("torch.nn.functional", "grid_sample", "torch.nn.functional.grid_sample"),
        ("torch.optim", "LBFGS", "torch.optim.LBFGS"),
        ("torch.linalg", "svd", "torch.linalg.svd"),
        ("torch.autograd", "NestedIOFunction", "torch.autograd.NestedIOFunction"),
    ],
)
def test_missing_pytorch_name_says_not_supported(owner, name, api):
    module = torch
    for part in owner.split(".")[1:]:
        module = getattr(module, part)
    if name in vars(module):
        pytest.skip(f"{api} exists now")
    with pytest.raises(NotImplementedError, match=f"^gradshell does not support {api} yet$"):
        getattr(module, name)
    assert not hasattr(module, name)
    assert getattr(module, name, "default") == "default"


def test_missing_tensor_method_says_not_supported():
    x = torch.ones(2)
    assert "stft" in PUBLIC["torch.Tensor"]
    with pytest.raises(NotImplementedError, match="gradshell does not support torch.Tensor.stft"):
        x.stft  # noqa: B018
    assert not hasattr(x, "stft")


@pytest.mark.parametrize("owner", ["torch", "torch.nn", "torch.optim", "torch.autograd"])
def test_name_pytorch_lacks_too_raises_pytorchs_attribute_error(real_torch, owner):
    ours, theirs = torch, real_torch
    for part in owner.split(".")[1:]:
        ours, theirs = getattr(ours, part), getattr(theirs, part)
    messages = []
    for module in (ours, theirs):
        with pytest.raises(AttributeError) as info:
            module.nonexistent_thing  # noqa: B018
        assert not isinstance(info.value, NotImplementedError)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_tensor_attribute_pytorch_lacks(real_torch):
    for t in (torch.ones(1), real_torch.ones(1)):
        with pytest.raises(
            AttributeError, match="^'Tensor' object has no attribute 'nonexistent'$"
        ):
            t.nonexistent  # noqa: B018


def test_the_shell_prints_the_not_supported_error():
    result = Session(viz=False).run_script("import torch\nprint(torch.fft)\n", "<prog>")
    assert "NotImplementedError: gradshell does not support torch.fft yet" in result.output
    assert "gradshell." not in result.output


def test_feature_checks_in_tutorials_still_run():
    program = (
        "import torch\n"
        "print(hasattr(torch, 'compile'), getattr(torch, 'backends', None))\n"
        "print(torch.cuda.is_available())\n"
    )
    result = Session(viz=False).run_script(program, "<prog>")
    assert result.output == "False None\nFalse\n", result.output


@pytest.mark.parametrize(
    "code,last_line",
    [
        ("import torch.fft", "NotImplementedError: gradshell does not support torch.fft yet"),
        ("from torch import fft", "NotImplementedError: gradshell does not support torch.fft yet"),
        (
            "from torch.nn import Conv3d",
            "NotImplementedError: gradshell does not support torch.nn.Conv3d yet",
        ),
        ("import torch.nonexistent", "ModuleNotFoundError: No module named 'torch.nonexistent'"),
        (
            "from torch import nonexistent",
            "ImportError: cannot import name 'nonexistent' from 'torch' (unknown location)",
        ),
    ],
)
def test_imports_of_missing_pytorch_parts(code, last_line):
    result = Session(viz=False).run_script(code + "\n", "<prog>")
    assert result.output.rstrip().splitlines()[-1] == last_line, result.output
