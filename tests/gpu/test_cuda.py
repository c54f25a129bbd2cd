"""CUDA end to end: the seed program, printing, devices, nn modules moved with .cuda(),
gradients equal to the CPU's. Each test runs on the CuPy test double (always) and on a
real NVIDIA GPU with CuPy (skipped cleanly where there is none)."""

import numpy as np
import pytest
from support.fake_cupy import DeviceArray, fake_cupy

from gradshell import torch as gtorch
from gradshell.core import backends
from gradshell.core.device import Device


@pytest.fixture(params=["test-double", "real-gpu"])
def cuda(request):
    """A CUDA backend: the CuPy test double, or real CuPy on a GPU."""
    if request.param == "test-double":
        backends.use_cuda_backend(fake_cupy, DeviceArray, lambda a: Device("cuda", 0))
        yield request.param
        backends.reset_cuda_backend()
    else:
        backends.reset_cuda_backend()
        if not gtorch.cuda.is_available():
            pytest.skip("needs CuPy and an NVIDIA GPU")
        yield request.param


def test_seed_program_on_the_gpu(cuda):
    x = gtorch.ones(2, 2, device="cuda", requires_grad=True)
    out = ((x + 2) * (x + 2) * 3).mean()
    out.backward()
    assert str(x.grad.device) == "cuda:0"
    assert repr(x.grad) == (
        "tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]], device='cuda:0')"
    )
    assert np.allclose(x.grad.cpu().numpy(), 4.5)


def test_numpy_of_a_cuda_tensor_raises_as_pytorch(cuda):
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        gtorch.ones(2, device="cuda").numpy()


def test_gpu_matches_cpu_for_a_small_network(cuda):
    gtorch.manual_seed(0)
    model = gtorch.nn.Sequential(gtorch.nn.Linear(4, 8), gtorch.nn.ReLU(), gtorch.nn.Linear(8, 2))
    x = gtorch.randn(16, 4)
    y = gtorch.randint(0, 2, (16,))
    loss_cpu = gtorch.nn.functional.cross_entropy(model(x), y)
    loss_cpu.backward()
    grads_cpu = [p.grad.numpy().copy() for p in model.parameters()]
    model.zero_grad()
    model.cuda()
    loss_gpu = gtorch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
    loss_gpu.backward()
    assert abs(loss_gpu.item() - loss_cpu.item()) < 1e-5
    for p, g in zip(model.parameters(), grads_cpu, strict=True):
        assert str(p.grad.device) == "cuda:0"
        np.testing.assert_allclose(p.grad.cpu().numpy(), g, rtol=1e-4, atol=1e-6)


def test_optimizer_step_stays_on_the_device(cuda):
    w = gtorch.ones(3, device="cuda", requires_grad=True)
    opt = gtorch.optim.Adam([w], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    assert str(w.device) == "cuda:0"
    np.testing.assert_allclose(w.detach().cpu().numpy(), 0.9, rtol=1e-5)


def test_mixing_devices_raises_as_pytorch(cuda):
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        _ = gtorch.ones(2, device="cuda") + gtorch.ones(2)
