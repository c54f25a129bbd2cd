"""What happens when code asks for a part of PyTorch gradshell does not have: a name real
PyTorch has (`torch.fft`, `nn.Conv3d`, `x.stft`) raises "gradshell does not support
torch.fft yet"; a name PyTorch lacks too raises PyTorch's own AttributeError.

The error is a NotImplementedError that is also an AttributeError, so `hasattr(torch,
'compile')` and `getattr(torch.backends, 'mps', None)` answer False / None instead of
stopping a tutorial's feature check.
"""

from __future__ import annotations

import sys

from gradshell.core.tensor import Tensor
from gradshell.torch._torch_names import PUBLIC

_PREFIX = "gradshell.torch"


class NotSupportedError(NotImplementedError, AttributeError):
    """A PyTorch API gradshell does not implement (yet)."""


# Shown as the NotImplementedError it is: tracebacks print `NotImplementedError: ...`.
NotSupportedError.__module__ = "builtins"
NotSupportedError.__name__ = NotSupportedError.__qualname__ = "NotImplementedError"


def not_supported(api: str) -> NotSupportedError:
    """The error for `api` (e.g. 'torch.fft'), a PyTorch name gradshell lacks."""
    return NotSupportedError(f"gradshell does not support {api} yet")


def _module_getattr(torch_name: str):
    known = PUBLIC.get(torch_name, frozenset())

    def __getattr__(name: str):
        if name in known:
            raise not_supported(f"{torch_name}.{name}")
        raise AttributeError(f"module '{torch_name}' has no attribute '{name}'")

    return __getattr__


def _tensor_getattr(self, name: str):
    if not name.startswith("_") and name in PUBLIC["torch.Tensor"]:
        raise not_supported(f"torch.Tensor.{name}")
    raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


def install() -> None:
    """Give every gradshell torch module, and Tensor, PyTorch's answer for missing names."""
    for modname, mod in list(sys.modules.items()):
        if mod is None or not (modname == _PREFIX or modname.startswith(_PREFIX + ".")):
            continue
        if "__getattr__" in vars(mod):
            continue  # the module answers for its own lazy names
        torch_name = "torch" + modname[len(_PREFIX) :]
        mod.__getattr__ = _module_getattr(torch_name)
    Tensor.__getattr__ = _tensor_getattr
