"""`%device cuda|cpu` and `--device`: the default device for creation functions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradshell.shell.magics import MagicError, register_magic

if TYPE_CHECKING:
    from gradshell.shell.session import Session


def set_default_device(name: str) -> str:
    """Make `name` ('cpu', 'cuda', 'cuda:1') the default device; returns its description.

    Raises AssertionError (as a CPU-only PyTorch does, with gradshell's `hint`) when CUDA
    is asked for without CuPy and a GPU, and RuntimeError for an unknown device string."""
    from gradshell.core.device import Device
    from gradshell.ops import creation

    device = Device(name)
    if device.type not in ("cpu", "cuda"):
        raise RuntimeError(f"gradshell: device '{device}' is not supported (cpu or cuda)")
    if device.type == "cuda":
        from gradshell.core.backends import cuda_module

        cuda_module(device)  # raises when there is no GPU
    creation.defaults.device = device
    return describe_default_device()


def describe_default_device() -> str:
    """'cpu (NumPy)' or 'cuda:0 (CuPy, <GPU name>)' for the current default device."""
    from gradshell.ops import creation

    d = creation.defaults.device
    if d.type == "cpu":
        return "cpu (NumPy)"
    from gradshell.torch import cuda

    return f"{d.type}:{d.index or 0} (CuPy, {cuda.get_device_name(d.index or 0)})"


def _device_magic(session: Session, arg: str) -> str:
    if not arg:
        return f"default device: {describe_default_device()}\n"
    try:
        return f"default device: {set_default_device(arg)}\n"
    except AssertionError as exc:
        hint = getattr(exc, "hint", "").removeprefix("gradshell: ")
        raise MagicError(f"{exc} ({hint})" if hint else str(exc)) from None
    except RuntimeError as exc:
        raise MagicError(str(exc).removeprefix("gradshell: ")) from None


register_magic(
    "device",
    _device_magic,
    "%device cuda|cpu: the device new tensors go to (cuda needs CuPy and a GPU)",
    record=True,
)
