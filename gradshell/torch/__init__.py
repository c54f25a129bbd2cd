"""gradshell's torch: the PyTorch-like namespace the shell gives learners as `torch`.

`from gradshell import torch` in Python gives the same module. It re-exports the core
(tensors, dtypes, devices, grad modes), takes the op library's functions under the torch
names each op declares in the op registry (`gradshell.ops.registry`), and adds the
submodules (nn, optim, autograd, linalg, random, ...).
"""

from __future__ import annotations

import builtins as _builtins
import math as _math
import sys as _sys

from gradshell import ops as _ops
from gradshell.core import dtypes as _dtypes
from gradshell.core.device import Device as device
from gradshell.core.dtypes import (
    bfloat16,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    set_default_dtype,
    uint8,
)
from gradshell.core.dtypes import (
    bool_ as bool,  # noqa: A001 - PyTorch's name
)
from gradshell.core.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from gradshell.core.size import Size, strided
from gradshell.core.tensor import Tensor
from gradshell.ops import registry as _registry
from gradshell.printing import get_printoptions, set_printoptions
from gradshell.torch import (  # noqa: F401 - submodules
    autograd,
    cuda,
    linalg,
    random,  # noqa: F401 - torch.random
)
from gradshell.torch.random import (
    Generator,
    bernoulli,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    multinomial,
    normal,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
)

__version__ = "2.13.0+cpu"  # what the CPU build of PyTorch 2.13 reports

half = float16
float = float32  # noqa: A001
double = float64
short = int16
int = int32  # noqa: A001
long = int64
dtype = _dtypes.DType
pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan

_ = _ops  # the import above installs the Tensor methods

# The functional forms of the ops, under the torch names each op declares in the registry.
globals().update(_registry.functions())


def numel(input: Tensor) -> _builtins.int:  # noqa: A002
    """The number of elements of `input`."""
    return input.numel()


def is_tensor(obj) -> _builtins.bool:
    """True if `obj` is a tensor."""
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> _builtins.bool:  # noqa: A002
    """True for float16/32/64 tensors."""
    return input.is_floating_point()


def typename(obj) -> str:
    """The legacy type name of a tensor ('torch.FloatTensor'), else the object's type name."""
    if isinstance(obj, Tensor):
        return obj.type()
    return type(obj).__name__


def detach(input: Tensor) -> Tensor:  # noqa: A002
    """input.detach()."""
    return input.detach()


from gradshell.ops import return_types  # noqa: E402
from gradshell.torch import (  # noqa: E402 - they use the namespace above
    _wiring,  # noqa: E402, F401 - connects printers and random numbers
    accelerator,  # noqa: E402, F401 - torch.accelerator
    distributions,  # noqa: E402, F401 - torch.distributions
    nn,
    optim,
    serialization,  # noqa: E402
    utils,  # noqa: E402, F401 - torch.utils.data
)
from gradshell.torch._defaults import (  # noqa: E402, F401
    get_default_device,
    set_default_device,
    set_default_tensor_type,
)
from gradshell.torch._type_info import finfo, iinfo  # noqa: E402, F401
from gradshell.torch.serialization import load, save  # noqa: E402, F401


def _finish() -> None:
    """PyTorch's class names, keywords and missing-name errors for every torch module."""
    from gradshell.torch import _kwargs, _missing, _names

    _names.present_as_torch()
    _names.present_modules_as_torch()
    _kwargs.install(_sys.modules[__name__])
    _missing.install()


_finish()  # keep this last: it covers the modules imported above
