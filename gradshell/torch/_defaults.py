"""torch.set_default_device / get_default_device and the deprecated
torch.set_default_tensor_type: where and in what dtype creation functions make tensors."""

from __future__ import annotations

import warnings

from gradshell.core import dtypes
from gradshell.core.device import Device, as_device

__all__ = ["get_default_device", "set_default_device", "set_default_tensor_type"]

_TENSOR_TYPE_WARNING = (
    "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
    "torch.set_default_dtype() and torch.set_default_device() as alternatives. (Triggered "
    "internally at /__w/pytorch/pytorch/torch/csrc/tensor/python_tensor.cpp:434.)"
)


def set_default_device(device) -> None:
    """Create tensors on `device` when a creation function is given none (None: the CPU).

    As in PyTorch, asking for CUDA where there is none fails when a tensor is created."""
    from gradshell.ops import creation

    creation.defaults.device = Device("cpu") if device is None else as_device(device)


def get_default_device() -> Device:
    """The device creation functions use by default."""
    from gradshell.ops import creation

    return creation.defaults.device


def set_default_tensor_type(t) -> None:
    """The 1.x way to set the default dtype (and device): torch.FloatTensor,
    torch.DoubleTensor or their names such as 'torch.DoubleTensor'."""
    warnings.warn(_TENSOR_TYPE_WARNING, UserWarning, stacklevel=2)
    name = t if isinstance(t, str) else f"{getattr(t, '__module__', '')}.{t.__name__}"
    cuda = name.startswith("torch.cuda.")
    legacy = name.rsplit(".", 1)[-1]
    dt = next((d for d in dtypes.ALL if d.legacy_name == legacy), None)
    if dt is None or not name.startswith("torch."):
        raise TypeError(f"invalid type: '{name}'")
    if cuda:
        from gradshell.torch import cuda as _cuda

        if not _cuda.is_available():
            raise TypeError(f"type {name} not available. Torch not compiled with CUDA enabled.")
    if not dt.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    dtypes.set_default_dtype(dt)
    if cuda:
        set_default_device("cuda")
