"""gradshell's torch: the PyTorch-like namespace the shell gives learners as `torch`.

`from gradshell import torch` in Python gives the same module. It re-exports the core
(tensors, dtypes, devices, grad modes) and the op library under PyTorch's names.
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
from gradshell.ops import arithmetic as _ar
from gradshell.ops import comparison as _cmp
from gradshell.ops import indexing as _idx
from gradshell.ops import linalg as _la
from gradshell.ops import reduction as _red
from gradshell.ops import shape as _sh
from gradshell.ops import unary as _un
from gradshell.ops.creation import (
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    logspace,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from gradshell.ops.creation import range_ as range  # noqa: A001 - PyTorch's name
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

# -- functional forms of the ops ---------------------------------------------------------------
add = _ar.add
sub = subtract = _ar.sub
mul = multiply = _ar.mul
div = divide = true_divide = _ar.div
floor_divide = _ar.floor_divide
remainder = _ar.remainder
pow = _ar.pow  # noqa: A001
neg = negative = _ar.neg


def rsub(input, other, *, alpha=1):  # noqa: A002
    """other - alpha * input."""
    return _ar.rsub(input, other, alpha=alpha)


exp = _un.exp
expm1 = _un.expm1
log = _un.log
log2 = _un.log2
log10 = _un.log10
log1p = _un.log1p
sqrt = _un.sqrt
rsqrt = _un.rsqrt
reciprocal = _un.reciprocal
abs = absolute = _un.abs  # noqa: A001
sign = _un.sign
sin = _un.sin
cos = _un.cos
tan = _un.tan
tanh = _un.tanh
sigmoid = _un.sigmoid
relu = _un.relu
floor = _un.floor
ceil = _un.ceil
trunc = fix = _un.trunc
round = _un.round  # noqa: A001
where = _un.where

eq = _cmp.eq
ne = not_equal = _cmp.ne
lt = less = _cmp.lt
le = less_equal = _cmp.le
gt = greater = _cmp.gt
ge = greater_equal = _cmp.ge
equal = _cmp.equal
logical_and = _cmp.logical_and
logical_or = _cmp.logical_or
logical_xor = _cmp.logical_xor
logical_not = _cmp.logical_not
bitwise_and = _cmp.bitwise_and
bitwise_or = _cmp.bitwise_or
bitwise_xor = _cmp.bitwise_xor
bitwise_not = _cmp.bitwise_not
isnan = _cmp.isnan
isinf = _cmp.isinf
isfinite = _cmp.isfinite
isclose = _cmp.isclose
allclose = _cmp.allclose

sum = _red.sum  # noqa: A001
mean = _red.mean
norm = _red.norm

matmul = _la.matmul
mm = _la.mm
mv = _la.mv
dot = inner = _la.dot
bmm = _la.bmm
outer = ger = _la.outer

reshape = _sh.reshape
flatten = _sh.flatten
unflatten = _sh.unflatten
t = _sh.t
transpose = swapaxes = swapdims = _sh.transpose
permute = _sh.permute
squeeze = _sh.squeeze
unsqueeze = _sh.unsqueeze
select = _sh.select
narrow = _sh.narrow
clone = _sh.clone
movedim = moveaxis = _sh.movedim
nonzero = _idx.nonzero


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


def broadcast_shapes(*shapes) -> Size:
    """The shape that tensors of `shapes` broadcast to."""
    out: list = []
    for s in shapes:
        s = (s,) if isinstance(s, _builtins.int) else tuple(s)
        out = _la._broadcast_shapes(tuple(out), s) if out else list(s)
    return Size(out)


from gradshell.torch import _wiring  # noqa: E402, F401 - connects printers and random numbers

# -- the op library of issue 6: more elementwise functions, reductions, shape ops, nn ------
erf = _un.erf
sinh = _un.sinh
cosh = _un.cosh
asin = arcsin = _un.asin
acos = arccos = _un.acos
atan = arctan = _un.atan
atan2 = arctan2 = _ar.atan2
lerp = _ar.lerp
addcmul = _ar.addcmul
addcdiv = _ar.addcdiv
maximum = _ar.maximum
minimum = _ar.minimum
clamp = clip = _ar.clamp
prod = _red.prod
max = _red.max  # noqa: A001
min = _red.min  # noqa: A001
amax = _red.amax
amin = _red.amin
argmax = _red.argmax
argmin = _red.argmin
var = _red.var
std = _red.std
logsumexp = _red.logsumexp
cumsum = _red.cumsum
cumprod = _red.cumprod
all = _red.all  # noqa: A001
any = _red.any  # noqa: A001
dist = _red.dist
cat = concat = concatenate = _sh.cat
stack = _sh.stack
split = _sh.split
chunk = _sh.chunk
unbind = _sh.unbind
flip = _sh.flip
fliplr = _sh.fliplr
flipud = _sh.flipud
roll = _sh.roll
tril = _sh.tril
triu = _sh.triu
diagonal = _sh.diagonal
masked_fill = _idx.masked_fill
gather = _idx.gather
scatter = _idx.scatter
scatter_add = _idx.scatter_add
index_select = _idx.index_select
index_add = _idx.index_add
from gradshell.ops import nn as _nn_ops  # noqa: E402
from gradshell.ops import return_types  # noqa: E402
from gradshell.torch import nn, optim  # noqa: E402 - they use the namespace above

softmax = _nn_ops.softmax
log_softmax = _nn_ops.log_softmax
dropout = _nn_ops.dropout
einsum = _la.einsum
addmm = _la.addmm

# -- issue 14: layers' ops, inverse, one-sided clamps, default device, accelerator ---------
from gradshell.ops import clamping as _clamping  # noqa: E402
from gradshell.torch import accelerator  # noqa: E402, F401 - torch.accelerator
from gradshell.torch._defaults import (  # noqa: E402, F401
    get_default_device,
    set_default_device,
    set_default_tensor_type,
)

inverse = linalg.inv
clamp_min = _clamping.clamp_min
clamp_max = _clamping.clamp_max
clamp_ = _clamping.clamp_
clamp_min_ = _clamping.clamp_min_
clamp_max_ = _clamping.clamp_max_

from gradshell.torch import (
    serialization,  # noqa: E402
    utils,  # noqa: E402, F401 - torch.utils.data
)
from gradshell.torch.serialization import load, save  # noqa: E402, F401

addmv = _la.addmv
square = _un.square


def _finish() -> None:
    """PyTorch's class names, keywords and missing-name errors for every torch module."""
    from gradshell.torch import _kwargs, _missing, _names

    _names.present_as_torch()
    _kwargs.install(_sys.modules[__name__])
    _missing.install()


_finish()  # keep this last: it covers the modules imported above
