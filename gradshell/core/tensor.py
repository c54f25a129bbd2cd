"""The Tensor: an n-dimensional array (NumPy or CuPy) with autograd metadata.

This module holds the tensor's state and the parts of its API that are not ops:
shape and dtype queries, conversions to Python and NumPy, and the autograd surface
(`requires_grad`, `grad`, `grad_fn`, `backward`, hooks, `detach`, `.data`). The ops
(arithmetic, reductions, views, ...) live in `gradshell.ops` and install themselves
as methods.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

from gradshell.core import dtypes, events
from gradshell.core import storage as _storage
from gradshell.core.device import array_module, device_of, to_numpy
from gradshell.core.era import settings as _era
from gradshell.core.grad_mode import state as _grad_state
from gradshell.core.size import Size
from gradshell.core.warn_once import SCALAR_OF_GRAD_TENSOR, warn_once

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered "
    "internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
)


_constructor: Callable[..., Tensor] | None = None
_view_hook: Callable[[Tensor], None] | None = None


def set_view_hook(fn: Callable[[Tensor], None] | None) -> None:
    """Install `fn(tensor)`, called after each in-place write into a tensor that shares
    its storage with views, to give those views their new history (the op library
    installs it: regenerating a view needs its nodes)."""
    global _view_hook
    _view_hook = fn


def set_constructor(fn: Callable[..., Tensor] | None) -> None:
    """Install `fn(cls, *args, **kwargs)` as what `torch.Tensor(...)` calls.

    The op library calls this once when it installs itself, so that the core never
    imports it.
    """
    global _constructor
    _constructor = fn


class VersionCounter:
    """Counts in-place changes to a storage; shared by a tensor and its views."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


def wrap(data, dtype: dtypes.DType | None = None) -> Tensor:
    """A new plain tensor around the array `data` (no copy)."""
    t = object.__new__(Tensor)
    if type(data) is not np.ndarray and isinstance(data, np.generic):
        # NumPy hands back scalars (np.float64, ...) for 0-d results; a tensor always holds
        # an array, so in-place ops (`out=`), device checks and views treat it like any other.
        data = np.asarray(data)
    if dtype is None:
        dtype = dtypes.from_numpy(data.dtype)
    elif dtype is dtypes.bfloat16:
        data = dtypes.round_bfloat16(data)
    t._data = data
    t._dtype = dtype
    if _grad_state.inference:
        t._is_inference = True
    return t


class Tensor:
    """A multi-dimensional array that can record the operations applied to it."""

    __module__ = "torch"  # type(x) reads <class 'torch.Tensor'>, as in PyTorch

    # Class-level defaults keep tensor creation cheap: an instance stores only what differs.
    _data = None
    _dtype = dtypes.float32
    _requires_grad = False
    _grad_fn = None
    _output_nr = 0
    _grad = None
    _version_counter = None
    _base = None
    # the views of one storage (a WeakSet shared by the base and its views), and how a view
    # was made: None, or "no_grad" / "multi" for views PyTorch forbids writing into
    _views = None
    _view_kind = None
    _grad_via_base = False  # a view made in no_grad mode requires grad only through its base
    _hooks = None
    _retains_grad = False
    _accumulator = None
    _is_inference = False
    _is_parameter = False
    _legacy_variable = False
    _post_accumulate_hooks = None
    __array_priority__ = 1000  # so `ndarray + tensor` defers to Tensor.__radd__

    # -- construction -------------------------------------------------------------------------
    def __new__(cls, *args, **kwargs):
        # `torch.Tensor(...)` is the legacy constructor; the op library installs it with
        # set_constructor (the core's own code builds tensors with `wrap`).
        if _constructor is None:
            raise TypeError("torch.Tensor() needs the op library: import gradshell.ops first")
        return _constructor(cls, *args, **kwargs)

    # -- basic properties ---------------------------------------------------------------------
    @property
    def dtype(self) -> dtypes.DType:
        """The element type, e.g. torch.float32."""
        return self._dtype

    @property
    def shape(self) -> Size:
        """The size of each dimension, as a torch.Size."""
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        """The shape as a torch.Size, or the size of dimension `dim`."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[self._wrap_dim(dim)]

    def dim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    def numel(self) -> int:
        """The number of elements."""
        return self._data.size

    nelement = numel

    def element_size(self) -> int:
        """Bytes per element."""
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes used by the elements."""
        return self._data.size * self._dtype.itemsize

    @property
    def device(self):
        """The device holding the data (cpu, or cuda:N)."""
        return device_of(self._data)

    @property
    def is_cuda(self) -> bool:
        """True for tensors on a CUDA device."""
        return self.device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        """True for tensors in host memory."""
        return self.device.type == "cpu"

    def get_device(self) -> int:
        """The CUDA device index, or -1 on the CPU."""
        d = self.device
        return -1 if d.type == "cpu" else (d.index or 0)

    def is_floating_point(self) -> bool:
        """True for float16/32/64 tensors."""
        return self._dtype.category == dtypes.FLOAT

    def is_complex(self) -> bool:
        """Complex tensors are not supported; always False."""
        return False

    def stride(self, dim: int | None = None):
        """Steps in elements between neighbours along each dimension."""
        size = self._dtype.itemsize
        strides = tuple(s // size for s in self._data.strides)
        if dim is None:
            return strides
        return strides[self._wrap_dim(dim)]

    def storage_offset(self) -> int:
        """Elements between the start of the storage and this tensor's first element."""
        root = self._storage_root()
        if root is self._data:
            return 0
        lo = _address(self._data) - _address(root)
        return lo // self._dtype.itemsize

    def _storage_root(self):
        a = self._data
        while True:
            b = getattr(a, "base", None)
            if not isinstance(b, type(a)):
                # a writable expand is NumPy's as_strided, whose base wraps the array viewed
                b = getattr(b, "base", None)
                if not isinstance(b, type(a)):
                    return a
            a = b

    def data_ptr(self) -> int:
        """The address of the first element."""
        return _address(self._data)

    def untyped_storage(self):
        """The bytes this tensor and all its views share."""
        return _storage.UntypedStorage(self._storage_root())

    def storage(self):
        """The shared memory as elements of this tensor's dtype (deprecated by PyTorch,
        which warns once)."""
        _storage.warn_typed_storage(stacklevel=2)
        return _storage.TypedStorage(self._storage_root(), self._dtype)

    def is_contiguous(self, memory_format=None) -> bool:
        """True if the elements are laid out in row-major order without gaps."""
        return _is_contiguous(self._data.shape, self.stride())

    @property
    def _version(self) -> int:
        if self._is_inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        c = self._version_counter
        return 0 if c is None else c.value

    def _counter(self) -> VersionCounter:
        c = self._version_counter
        if c is None:
            c = self._version_counter = VersionCounter()
        return c

    def _bump_version(self) -> None:
        c = self._version_counter
        if c is None:
            c = self._version_counter = VersionCounter()
        c.value += 1
        if self._dtype is dtypes.bfloat16:  # a write into the float32 storage: round it
            self._data[...] = dtypes.round_bfloat16(self._data)
        if self._views is not None and _view_hook is not None:
            _view_hook(self)

    def _wrap_dim(self, dim: int, ndim: int | None = None) -> int:
        return wrap_dim(dim, self._data.ndim if ndim is None else ndim)

    # -- conversions --------------------------------------------------------------------------
    def item(self):
        """The value of a one-element tensor as a Python number."""
        n = self._data.size
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return to_numpy(self._data).reshape(()).item()

    def tolist(self):
        """The values as (nested) Python lists of numbers."""
        return to_numpy(self._data).tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """A NumPy array sharing memory with this tensor."""
        if self._requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        if self._dtype is dtypes.bfloat16 and not force:  # NumPy has no bfloat16
            raise TypeError("Got unsupported ScalarType BFloat16")
        if self.device.type != "cpu":
            if force:
                return to_numpy(self._data)
            raise TypeError(
                f"can't convert {self.device.type}:{self.device.index or 0} device type tensor "
                "to numpy. Use Tensor.cpu() to copy the tensor to host memory first."
            )
        return self._data

    def __array__(self, dtype=None, copy=None):
        a = to_numpy(self._data)
        return a if dtype is None else a.astype(dtype)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def _scalar_for_python(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __float__(self) -> float:
        value = self._scalar_for_python()
        if self._requires_grad and not _era.legacy:  # PyTorch 0.3 did not warn
            warn_once(SCALAR_OF_GRAD_TENSOR, stacklevel=2)
        return float(value)

    def __int__(self) -> int:
        return int(self._scalar_for_python())

    def __index__(self) -> int:
        if self._dtype.category == dtypes.FLOAT or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self) -> complex:
        value = self._scalar_for_python()
        if self._requires_grad and not _era.legacy:  # PyTorch 0.3 did not warn
            warn_once(SCALAR_OF_GRAD_TENSOR, stacklevel=2)
        return complex(value)

    def __hash__(self) -> int:
        return id(self)

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __reversed__(self):
        return iter(self.flip(0)) if self._data.ndim else iter([self])

    def __repr__(self) -> str:  # replaced by the printers when gradshell.torch is imported
        return f"tensor({to_numpy(self._data).tolist()!r})"

    # -- autograd surface ---------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded for differentiation."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self._set_requires_grad(bool(value), "requires_grad")

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set requires_grad in place; returns self."""
        self._set_requires_grad(bool(requires_grad), "requires_grad_")
        return self

    def _set_requires_grad(self, value: bool, how: str) -> None:
        if self._grad_fn is not None:
            if value and how == "requires_grad_":
                return
            if value:
                raise RuntimeError("you can only change requires_grad flags of leaf variables.")
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if value and self._dtype.category != dtypes.FLOAT:
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients"
                if how == "requires_grad"
                else "only Tensors of floating point dtype can require gradients"
            )
        if value and self._is_inference:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not "
                "allowed."
            )
        self._requires_grad = value
        self._grad_via_base = False

    @property
    def is_leaf(self) -> bool:
        """True for tensors not produced by a recorded operation."""
        return self._grad_fn is None

    @property
    def grad_fn(self):
        """The graph node that produced this tensor, or None for leaves."""
        fn = self._grad_fn
        if fn is not None and fn.invalid_view:
            raise RuntimeError(fn.message)
        return fn

    @property
    def output_nr(self) -> int:
        """Which output of its grad_fn this tensor is."""
        return self._output_nr

    @property
    def grad(self):
        """The accumulated gradient (None until a backward pass reaches this tensor)."""
        if self._grad_fn is not None and not self._retains_grad and not _era.legacy:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value._dtype is not self._dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value._dtype.cpp_name}' to "
                    f"a tensor with grad_dtype '{self._dtype.scalar_name}'. The gradient "
                    "must match the tensor's grad_dtype (defaults to the tensor's dtype). You "
                    "can set the tensor's grad_dtype attribute with a specific dtype, or None to "
                    "allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a "
                    "tensor and its gradient may break downstream systems that assume they match."
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a "
                    f"tensor of size '{list(self._data.shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size"
                )
            if value.device != self.device:
                raise RuntimeError("assigned grad has data located on a different device")
        before = self._grad
        self._grad = value
        if events.active:
            events.emit(events.GradSetToNone(self, before, value))

    @grad.deleter
    def grad(self) -> None:
        self.grad = None

    def retain_grad(self) -> None:
        """Keep `.grad` for this non-leaf tensor after backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        from gradshell.core.engine import register_retain_grad

        self._retains_grad = True
        register_retain_grad(self)

    @property
    def retains_grad(self) -> bool:
        """True for non-leaf tensors whose .grad is kept (see retain_grad)."""
        return self._retains_grad

    def register_hook(self, hook):
        """Call `hook(grad)` when this tensor's gradient is computed; it may return a new one."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        from gradshell.core.engine import tensor_hook_registry

        registry = tensor_hook_registry(self)
        handle = RemovableHandle(registry)
        registry[handle.id] = hook
        return handle

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor with respect to the graph's leaves."""
        from gradshell.core import engine

        engine.backward(
            (self,),
            gradient,
            retain_graph=retain_graph,
            create_graph=create_graph,
            inputs=inputs,
        )

    def detach(self) -> Tensor:
        """A tensor sharing this one's data and version counter, outside the graph."""
        out = wrap(self._data, self._dtype)
        out._version_counter = self._counter()
        return out

    def detach_(self) -> Tensor:
        """Detach this tensor from the graph in place: it becomes a leaf."""
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is "
                "set as True, gradients are views of DDP buckets, and hence detach_() cannot "
                "be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        self._grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    @property
    def data(self) -> Tensor:
        """The same data as a tensor outside the graph, with its own version counter."""
        return wrap(self._data, self._dtype)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self._requires_grad and value._dtype.category != dtypes.FLOAT:
            raise RuntimeError(
                "data set to a tensor that requires gradients must be floating point or "
                "complex dtype"
            )
        self._data = value._data
        self._dtype = value._dtype

    def is_inference(self) -> bool:
        """True for tensors created inside inference_mode."""
        return self._is_inference

    @property
    def volatile(self) -> bool:
        """PyTorch 0.3's flag, removed since: always False (with PyTorch's warning)."""
        warnings.warn(
            "volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2
        )
        return False

    @volatile.setter
    def volatile(self, value: bool) -> None:
        warnings.warn(
            "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
            UserWarning,
            stacklevel=2,
        )

    @property
    def is_sparse(self) -> bool:
        """Sparse tensors are not supported; always False."""
        return False

    @property
    def layout(self):
        """Always torch.strided."""
        from gradshell.core.size import strided

        return strided


def _address(a) -> int:
    iface = getattr(a, "__array_interface__", None) or a.__cuda_array_interface__
    return iface["data"][0]


def _is_contiguous(shape, strides) -> bool:
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides), strict=True):
        if n == 1:
            continue
        if s != expected:
            return n == 0
        expected *= n
    return True


def wrap_dim(dim: int, ndim: int) -> int:
    """`dim` as a non-negative index into `ndim` dimensions, with PyTorch's range error."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim + n if dim < 0 else dim


class RemovableHandle:
    """Returned by register_hook; `.remove()` unregisters the hook."""

    __module__ = "torch.utils.hooks"  # so its repr reads as PyTorch's

    _next_id = 0

    def __init__(self, registry: dict) -> None:
        self._registry = registry
        RemovableHandle._next_id += 1
        self.id = RemovableHandle._next_id

    def remove(self) -> None:
        """Unregister the hook."""
        self._registry.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


__all__ = [
    "Tensor",
    "VersionCounter",
    "wrap",
    "wrap_dim",
    "array_module",
    "RemovableHandle",
    "set_constructor",
    "set_view_hook",
]
