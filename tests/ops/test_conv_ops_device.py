"""The ops of issue 14 "on the device": with the CuPy test double holding every array,
conv2d, the poolings, batch_norm and the one-sided clamps must run without a stray NumPy
call, and still give PyTorch's values, gradients and node names. (linalg.inv is left out:
the double does not model cupy.linalg.)"""

from __future__ import annotations

import numpy as np
import pytest
from support.fake_cupy import DeviceArray, fake_cupy
from support.op_checks import Arg, check

from gradshell.core import backends
from gradshell.core.device import Device
from gradshell.ops import creation

pytest.importorskip("torch")


@pytest.fixture
def on_device():
    """Install the CuPy double and make creation functions default to cuda:0."""
    backends.use_cuda_backend(fake_cupy, DeviceArray, lambda a: Device("cuda", 0))
    creation.defaults.device = Device("cuda", 0)
    yield
    creation.defaults.device = Device("cpu")
    backends.reset_cuda_backend()


rng = np.random.default_rng(0)
IMG = rng.standard_normal((2, 2, 6, 5)).astype(np.float32)
W = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)
B = rng.standard_normal(4).astype(np.float32)
SQ = (rng.standard_normal((3, 3)) + 3 * np.eye(3)).astype(np.float32)

CASES = {
    "conv2d": (lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, 2, 1), IMG, W, B),
    "max_pool2d": (lambda t, x: t.nn.functional.max_pool2d(x, 2, ceil_mode=True), IMG),
    "avg_pool2d": (lambda t, x: t.nn.functional.avg_pool2d(x, 3, 1, 1), IMG),
    "adaptive_avg_pool2d": (lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, (2, 3)), IMG),
    "batch_norm": (
        lambda t, x, rm, rv: t.nn.functional.batch_norm(x, rm, rv, training=True),
        IMG,
        Arg(np.zeros(2, np.float32), False),
        Arg(np.ones(2, np.float32), False),
    ),
    "clamp_min_max": (lambda t, a: a.clamp_min(0.1) + t.clamp_max(a, 0.2), SQ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_on_device_matches_pytorch(on_device, name):
    fn, *args = CASES[name]
    ours, _ = check(fn, *args, rtol=1e-5, atol=1e-5, grad_rtol=1e-4, grad_atol=1e-4)
    outs = ours if isinstance(ours, tuple) else (ours,)
    for o in outs:
        assert isinstance(o._data, DeviceArray), name
