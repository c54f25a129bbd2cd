"""Tensor element types with PyTorch's names, and PyTorch's type-promotion rules."""

from __future__ import annotations

import numpy as np

# Categories order the kinds of numbers: a higher category wins in mixed arithmetic.
BOOL, INT, FLOAT = 0, 1, 2


class DType:
    """A tensor element type (`torch.float32`, ...), mapped onto a NumPy dtype."""

    __slots__ = (
        "name",
        "np",
        "category",
        "itemsize",
        "is_signed",
        "legacy_name",
        "aliases",
        "scalar_name",
        "cpp_name",
    )
    __module__ = "torch"

    def __init__(
        self,
        name: str,
        np_dtype: type,
        category: int,
        legacy_name: str,
        scalar_name: str,
        cpp_name: str,
        aliases=(),
    ):
        self.name = name
        #: PyTorch's ScalarType name ('Float', 'Long'), as its messages spell dtypes
        self.scalar_name = scalar_name
        #: the C++ type name ('float', 'long int'), as other messages spell them
        self.cpp_name = cpp_name
        self.np = np.dtype(np_dtype)
        self.category = category
        self.itemsize = self.np.itemsize
        self.is_signed = name not in ("bool", "uint8")
        self.legacy_name = legacy_name
        self.aliases = tuple(aliases)

    @property
    def is_floating_point(self) -> bool:
        """True for float16/float32/float64."""
        return self.category == FLOAT

    @property
    def is_complex(self) -> bool:
        """Complex dtypes are not supported; always False."""
        return False

    def to_real(self) -> DType:
        """The real counterpart (itself: gradshell has no complex dtypes)."""
        return self

    def __repr__(self) -> str:
        return "torch." + self.name

    __str__ = __repr__

    def __reduce__(self):
        return (from_name, (self.name,))


float16 = DType("float16", np.float16, FLOAT, "HalfTensor", "Half", "c10::Half", ("half",))
float32 = DType("float32", np.float32, FLOAT, "FloatTensor", "Float", "float", ("float",))
float64 = DType("float64", np.float64, FLOAT, "DoubleTensor", "Double", "double", ("double",))
uint8 = DType("uint8", np.uint8, INT, "ByteTensor", "Byte", "unsigned char")
int8 = DType("int8", np.int8, INT, "CharTensor", "Char", "signed char")
int16 = DType("int16", np.int16, INT, "ShortTensor", "Short", "short int", ("short",))
int32 = DType("int32", np.int32, INT, "IntTensor", "Int", "int", ("int",))
int64 = DType("int64", np.int64, INT, "LongTensor", "Long", "long int", ("long",))
bool_ = DType("bool", np.bool_, BOOL, "BoolTensor", "Bool", "bool")
# NumPy has no bfloat16: its tensors hold float32 arrays whose values are all bfloat16
# numbers (every result is rounded to the nearest, ties to even, as PyTorch converts).
bfloat16 = DType("bfloat16", np.float32, FLOAT, "BFloat16Tensor", "BFloat16", "c10::BFloat16")
bfloat16.itemsize = 2

ALL: tuple[DType, ...] = (
    float16,
    float32,
    float64,
    uint8,
    int8,
    int16,
    int32,
    int64,
    bool_,
    bfloat16,
)
_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update({alias: d for d in ALL for alias in d.aliases})
_BY_NP = {d.np: d for d in ALL if d is not bfloat16}  # float32 arrays are float32


def round_bfloat16(data):
    """float32 `data` (NumPy or CuPy) rounded to the nearest bfloat16 numbers, ties to even,
    NaN kept quiet: c10::BFloat16's round_to_nearest_even, in float32 storage."""
    a = data.astype(np.float32, copy=False) if data.dtype != np.float32 else data
    bits = a.view(np.uint32)
    if not (bits & 0xFFFF).any():
        return a  # already bfloat16 numbers: keep the array itself (views stay views)
    rounded = (bits + (0x7FFF + ((bits >> 16) & 1))) & 0xFFFF0000
    out = rounded.astype(np.uint32, copy=False).view(np.float32)
    nan = a != a
    if nan.any():
        out = out.copy() if out.base is not None else out
        out[nan] = np.float32("nan")
    return out.reshape(a.shape)


_default_float = float32


DType.__name__ = DType.__qualname__ = "dtype"  # type(torch.float32) is torch.dtype


def from_name(name: str) -> DType:
    """The dtype called `name` ('float32', 'float', 'torch.int64', ...)."""
    return _BY_NAME[name.removeprefix("torch.")]


def from_numpy(np_dtype) -> DType:
    """The dtype for a NumPy dtype; TypeError for dtypes PyTorch cannot hold."""
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. The only "
            "supported types are: float64, float32, float16, complex64, complex128, int64, "
            "int32, int16, int8, uint64, uint32, uint16, uint8, and bool."
        ) from None


def get_default_dtype() -> DType:
    """The dtype of float tensors created without one (float32 unless changed)."""
    return _default_float


def set_default_dtype(d: DType) -> None:
    """Change the default float dtype; only float32 and float64 are allowed, as in PyTorch."""
    global _default_float
    if not isinstance(d, DType) or d not in (float32, float64, float16):
        raise TypeError("only floating-point types are supported as the default type")
    _default_float = d


def promote_types(a: DType, b: DType) -> DType:
    """The smallest dtype both `a` and `b` convert to safely (torch.promote_types)."""
    if a is b:
        return a
    if a.category != b.category:
        hi, lo = (a, b) if a.category > b.category else (b, a)
        return hi
    return _BY_NP[np.promote_types(a.np, b.np)]


def scalar_dtype(value) -> DType:
    """The dtype a Python number gets when it stands alone (bool, int64, default float)."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    return _default_float


def scalar_category(value) -> int:
    """Category of a Python number: BOOL, INT or FLOAT."""
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    return FLOAT


def _combine(higher: DType | None, lower: DType | None) -> DType | None:
    # A result from a higher-priority class of operands (dimensioned tensors over 0-dim
    # tensors over Python numbers) wins unless the lower one is of a higher category.
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.category == FLOAT:
        return higher
    if higher.category == BOOL or lower.category > higher.category:
        return promote_types(higher, lower)
    return higher


def result_type(*operands) -> DType:
    """PyTorch's result dtype for an operation on tensors and Python numbers."""
    dim = zero = wrapped = None
    for x in operands:
        d = getattr(x, "_dtype", None)
        if d is None:
            d = scalar_dtype(x)
            wrapped = d if wrapped is None else promote_types(wrapped, d)
        elif x._data.ndim:
            dim = d if dim is None else promote_types(dim, d)
        else:
            zero = d if zero is None else promote_types(zero, d)
    return _combine(dim, _combine(zero, wrapped))
