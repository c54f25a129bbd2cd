"""The core and op tests again, "on the device": a CuPy test double holds every array, so
any stray `np.` call or hidden host round trip fails. Results must still equal PyTorch's
(on the CPU) — the device changes where numbers live, never what they are."""

import pytest
from support.differential import compare
from support.fake_cupy import DeviceArray, fake_cupy

from gradshell import torch as gtorch
from gradshell.core import backends
from gradshell.core.device import Device
from gradshell.ops import creation

from .test_autograd import PROGRAMS as AUTOGRAD_PROGRAMS
from .test_tensor import PROGRAMS as TENSOR_PROGRAMS

HOST_ONLY = (
    "np.",
    "numpy",
    "from_numpy",
    ".cuda()",
    "torch.device",
    "get_device",
    "is_cuda",
    ".type(",
)


@pytest.fixture
def on_device():
    """Install the CuPy double and make creation functions default to cuda:0."""
    backends.use_cuda_backend(fake_cupy, DeviceArray, lambda a: Device("cuda", 0))
    creation.defaults.device = Device("cuda", 0)
    yield
    creation.defaults.device = Device("cpu")
    backends.reset_cuda_backend()


DEVICE_PROGRAMS = [
    p for p in AUTOGRAD_PROGRAMS + TENSOR_PROGRAMS if not any(h in p for h in HOST_ONLY)
]


@pytest.mark.parametrize("program", DEVICE_PROGRAMS)
def test_program_on_device_matches_pytorch(real_torch, on_device, program):
    # PyTorch on a GPU names CUDA tensor types in its messages; ours must too.
    compare(program, real_torch, message=lambda m: m.replace("torch.cuda.", "torch."))


def test_tensors_live_on_the_device(on_device):
    x = gtorch.ones(2, 2, requires_grad=True)
    y = (x + 2) * (x + 2) * 3
    y.mean().backward()
    assert isinstance(x.grad._data, DeviceArray)
    assert str(x.grad.device) == "cuda:0"
    assert repr(x.grad).endswith("device='cuda:0')")


def test_numpy_of_a_device_tensor_raises_as_pytorch(on_device):
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        gtorch.ones(2).numpy()


def test_mixing_devices_raises_as_pytorch(on_device):
    cpu = gtorch.ones(2, device="cpu")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        _ = gtorch.ones(2) + cpu
    moved = cpu.to("cuda")
    assert isinstance((moved + gtorch.ones(2))._data, DeviceArray)
    assert (moved.cpu() + cpu).tolist() == [2.0, 2.0]
