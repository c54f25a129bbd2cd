"""torch.set_default_device / get_default_device, the deprecated set_default_tensor_type,
torch.accelerator on a machine without a GPU, and torch.autograd.profiler (refused by
name rather than faked)."""

from __future__ import annotations

import warnings

import pytest
from support.tutorials import printed

from gradshell import torch as gtorch
from gradshell.core import dtypes
from gradshell.ops import creation


@pytest.fixture(autouse=True)
def _restore_defaults():
    dtype, device = dtypes.get_default_dtype(), creation.defaults.device
    yield
    dtypes.set_default_dtype(dtype)
    creation.defaults.device = device


DEFAULTS = """
import warnings
warnings.simplefilter('ignore')
torch.set_default_tensor_type(torch.DoubleTensor)
print(torch.ones(1).dtype, torch.get_default_dtype(), torch.tensor([1.5]).dtype)
torch.set_default_tensor_type('torch.FloatTensor')
print(torch.ones(1).dtype)
for bad in (torch.LongTensor, 'torch.cuda.FloatTensor'):
    try:
        torch.set_default_tensor_type(bad)
    except TypeError as e:
        print(e)
torch.set_default_device('cpu')
print(torch.get_default_device(), torch.zeros(1).device)
torch.set_default_device(None)
print(torch.get_default_device())
print(torch.accelerator.current_accelerator(), torch.accelerator.is_available())
print(torch.accelerator.device_count())
try:
    torch.accelerator.current_device_index()
except RuntimeError as e:
    print(e)
"""


def test_defaults_and_accelerator_print_as_pytorch(real_torch):
    if gtorch.cuda.is_available():
        pytest.skip("describes a machine without a GPU")
    assert printed(DEFAULTS, gtorch) == printed(DEFAULTS, real_torch)


def test_set_default_tensor_type_warns():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gtorch.set_default_tensor_type(gtorch.FloatTensor)
    assert "set_default_tensor_type() is deprecated" in str(caught[0].message)


def test_default_device_reaches_creation():
    gtorch.set_default_device("cpu")
    assert gtorch.ones(2).device.type == "cpu"
    assert str(gtorch.get_default_device()) == "cpu"


def test_profiler_is_refused_by_name():
    with pytest.raises(NotImplementedError, match=r"torch\.autograd\.profiler\.profile"):
        with gtorch.autograd.profiler.profile():
            pass
    from gradshell.torch.autograd.profiler import record_function  # as `import torch...`

    with pytest.raises(NotImplementedError, match="record_function"):
        record_function("x")
    assert repr(gtorch.autograd.profiler.profile) == "<class 'torch.autograd.profiler.profile'>"
