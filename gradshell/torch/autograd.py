"""torch.autograd: backward, grad, Variable (the 0.3 API), grad modes."""

from __future__ import annotations

import warnings

from gradshell.core.engine import backward, grad
from gradshell.core.grad_mode import (
    enable_grad,
    inference_mode,
    no_grad,
    set_grad_enabled,
)
from gradshell.core.tensor import Tensor

__all__ = [
    "Function",
    "Variable",
    "backward",
    "grad",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "set_detect_anomaly",
    "detect_anomaly",
    "gradcheck",
    "gradgradcheck",
]


class _VariableMeta(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor)


class Variable(metaclass=_VariableMeta):
    """The 0.3 wrapper: `Variable(t, requires_grad=True)` gives a tensor sharing t's data."""

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if volatile:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
        if data is None:
            from gradshell.ops.creation import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        out._base = None
        out._version_counter = None
        out._legacy_variable = True
        if requires_grad:
            if not out.is_floating_point():
                # the legacy constructor's own check, worded as PyTorch's (capital O)
                raise RuntimeError(
                    "Only Tensors of floating point and complex dtype can require gradients"
                )
            out.requires_grad_(True)
        return out


class set_detect_anomaly:  # noqa: N801 - PyTorch's name
    """Accepted for compatibility; gradshell's errors already name the failing node."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.mode = mode

    def __enter__(self):
        return None

    def __exit__(self, *exc) -> bool:
        return False


class detect_anomaly(set_detect_anomaly):  # noqa: N801 - PyTorch's name
    """`with torch.autograd.detect_anomaly():` warns as PyTorch does; otherwise a no-op."""

    def __init__(self, check_nan: bool = True) -> None:
        super().__init__(True, check_nan)
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )


# torch.autograd.functional (jacobian, hessian, ...): registered as a submodule so that
# `import torch.autograd.functional` and `from torch.autograd.functional import jacobian` work
# while this module stays a single file.
import sys as _sys  # noqa: E402

from gradshell.torch import _autograd_functional as functional  # noqa: E402

_sys.modules[__name__ + ".functional"] = functional

# torch.autograd.function (custom Functions) and torch.autograd.gradcheck, the same way.
from gradshell.torch import _autograd_function as function  # noqa: E402
from gradshell.torch import _gradcheck  # noqa: E402
from gradshell.torch._autograd_function import Function  # noqa: E402
from gradshell.torch._gradcheck import gradcheck, gradgradcheck  # noqa: E402

_sys.modules[__name__ + ".function"] = function
_sys.modules[__name__ + ".gradcheck"] = _gradcheck

# torch.autograd.profiler: refused with a clear message (gradshell has no profiler).
from gradshell.torch import _autograd_profiler as profiler  # noqa: E402

_sys.modules[__name__ + ".profiler"] = profiler
