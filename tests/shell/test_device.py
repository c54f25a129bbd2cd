"""--device and %device: the default device for creation functions, PyTorch's error and
gradshell's hint when there is no GPU, and the banner naming the active device."""

import pytest
from support.fake_cupy import DeviceArray, fake_cupy

from gradshell.core import backends
from gradshell.core.device import Device
from gradshell.ops import creation
from gradshell.shell import cli
from gradshell.shell.session import Session


@pytest.fixture
def fake_gpu():
    backends.use_cuda_backend(fake_cupy, DeviceArray, lambda a: Device("cuda", 0))
    yield
    creation.defaults.device = Device("cpu")
    backends.reset_cuda_backend()


@pytest.fixture
def no_gpu(monkeypatch):
    backends.reset_cuda_backend()
    monkeypatch.setattr(backends, "_checked", True)
    yield
    backends.reset_cuda_backend()


def test_device_magic_without_gpu_says_why(no_gpu):
    s = Session(viz=False)
    out = s.run_cell("%device cuda").output
    assert "Torch not compiled with CUDA enabled" in out
    assert "CuPy" in out
    assert s.run_cell("%device").output == "default device: cpu (NumPy)\n"


def test_cuda_call_without_gpu_prints_message_then_hint(no_gpu):
    s = Session(viz=False)
    out = s.run_cell("import torch\ntorch.ones(2).cuda()").output
    lines = out.rstrip("\n").splitlines()
    assert lines[-2] == "AssertionError: Torch not compiled with CUDA enabled"
    assert lines[-1].startswith("gradshell: CUDA tensors need CuPy and an NVIDIA GPU")


def test_device_magic_moves_creation_to_the_gpu(fake_gpu):
    s = Session(viz=False)
    assert "cuda:0 (CuPy, Fake CUDA Device" in s.run_cell("%device cuda").output
    out = s.run_cell(
        "import torch\nx = torch.ones(2, requires_grad=True)\n(x * 3).sum().backward()\nx.grad"
    ).output
    assert out == "tensor([3., 3.], device='cuda:0')\n"
    s.run_cell("%device cpu")
    assert s.run_cell("torch.ones(1)").output == "tensor([1.])\n"


def test_cli_device_flag(fake_gpu, capsys):
    # The fake GPU lives in this process, so run the code here (--unsafe), not in a kernel.
    program = "import torch; print(torch.zeros(1).device)"
    assert cli.main(["--unsafe", "--device", "cuda", "-c", program]) == 0
    assert capsys.readouterr().out == "cuda:0\n"
    assert "cuda:0" in cli.banner("modern", "python", False)


def test_cli_device_flag_without_gpu(no_gpu, capsys):
    assert cli.main(["--device", "cuda", "-c", "1"]) == 2
    err = capsys.readouterr().err
    assert "AssertionError: Torch not compiled with CUDA enabled" in err
