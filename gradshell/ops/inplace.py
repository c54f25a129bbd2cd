"""In-place machinery every family's in-place variants use (`apply_inplace`, `out=`),
and zero_, fill_ and copy_, with PyTorch's checks: no in-place change to a leaf that
requires grad, version counting, and rebasing a non-leaf's history onto the new node."""

from __future__ import annotations

import warnings
import weakref

from gradshell.core import dtypes, events, grad_mode
from gradshell.core.autograd import SavedTensor
from gradshell.core.engine import register_retain_grad
from gradshell.ops.base import (
    Node,
    Tensor,
    array_module,
    broadcast_fail,
    needs_grad,
    record,
    tensor_method,
    wrap,
)
from gradshell.ops.explanation import (
    Ctx,
    Formula,
    Local,
    const,
)
from gradshell.ops.viewgrad import OVERLAP, overlaps, rebase_view, view_error

LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_INPLACE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)


def check_inplace(self: Tensor, *others, overlap: bool = False) -> None:
    """Raise PyTorch's error for in-place changes autograd cannot allow; with `overlap`,
    also for writing elementwise into a view whose elements share memory (expand)."""
    base = self._base
    if grad_mode.state.enabled:
        if base is None:
            if self._requires_grad and self._grad_fn is None:
                raise RuntimeError(LEAF_INPLACE)
        elif (
            self._requires_grad
            or base._requires_grad
            or any(isinstance(o, Tensor) and o._requires_grad for o in others)
        ):
            if self._view_kind is not None:
                raise RuntimeError(view_error(self, direct=True))
            # a view that requires grad (itself, or through its base) of a storage with no
            # history: PyTorch's base is a leaf, whether or not it requires grad
            if (self._requires_grad or base._requires_grad) and base._grad_fn is None:
                raise RuntimeError(VIEW_OF_LEAF_INPLACE)
    # a view of an expanded tensor, or a tensor whose own storage is a broadcast (the
    # gradient sum's backward hands on, as PyTorch's expand): one location, many elements
    if overlap and overlaps(self):
        raise RuntimeError(OVERLAP)


def commit_write(self: Tensor, recorded: bool) -> None:
    """After an in-place write into `self` (and, if `recorded`, its node recorded on
    `self`): move the node onto the base when `self` is a view, and count the write."""
    if recorded:
        if self._retains_grad:
            register_retain_grad(self)  # PyTorch's .grad follows the tensor's new history
        if self._base is not None:
            rebase_view(self)
    self._bump_version()


def _can_cast(src: dtypes.DType, dst: dtypes.DType) -> bool:
    return src.category <= dst.category


def _check_cast(res_dtype: dtypes.DType, self: Tensor) -> None:
    if not _can_cast(res_dtype, self._dtype):
        raise RuntimeError(
            f"result type {res_dtype.scalar_name} can't be cast to the desired output type "
            f"{self._dtype.scalar_name}"
        )


def _snapshot(self: Tensor) -> Tensor:
    """The tensor's current value and graph position, as a separate tensor."""
    old = wrap(array_module(self._data).array(self._data, copy=True), self._dtype)
    if self._requires_grad:
        old._requires_grad = True
        old._grad_fn = self._grad_fn
        old._output_nr = self._output_nr
        if self._grad_fn is None:
            # a leaf that requires grad (grad mode is off here or check_inplace raised)
            old._accumulator = self._accumulator
    return old


def _settle(t: Tensor) -> None:
    """After a write into a bfloat16 tensor's float32 storage: round it to bfloat16."""
    if t._dtype is dtypes.bfloat16:
        t._data[...] = dtypes.round_bfloat16(t._data)


def rebase(self: Tensor, res: Tensor) -> Tensor:
    """Write `res` into `self`'s storage and make `res`'s node the new grad_fn of `self`."""
    _check_cast(res._dtype, self)
    data = self._data
    src = res._data
    if src.shape != data.shape:
        xp = array_module(data)
        try:
            src = xp.broadcast_to(src, data.shape)
        except ValueError:
            raise RuntimeError(
                f"output with shape [{', '.join(map(str, data.shape))}] doesn't match the "
                f"broadcast shape [{', '.join(map(str, src.shape))}]"
            ) from None
    data[...] = src
    _settle(self)
    node = res._grad_fn
    if node is not None:
        self._grad_fn = node
        self._requires_grad = True
        self._output_nr = res._output_nr
    commit_write(self, node is not None)
    if node is not None:
        saved = node._saved
        if saved:
            for st in saved.values():
                if type(st) is SavedTensor and st.node is not None:
                    st.data = self._data
                    st.counter = self._counter()
                    st.version = st.counter.value
                    if self._base is not None:
                        # PyTorch's error names such a view by its new history while it lives
                        st.view = weakref.ref(self)
    return self


def apply_inplace(self: Tensor, func, args: tuple, kwargs: dict, name: str = "") -> Tensor:
    """Run the out-of-place `func(self, *args)` and store the result in `self`."""
    check_inplace(self, *args, overlap=True)
    if needs_grad(self, *args):
        res = func(_snapshot(self), *args, **kwargs)
    else:
        res = func(self.detach() if self._requires_grad else self, *args, **kwargs)
        if res is NotImplemented:
            raise TypeError(f"{name}(): unsupported operand type {type(args[0]).__name__}")
        res = wrap(res._data, res._dtype)
    if res is NotImplemented:
        raise TypeError(f"{name}(): unsupported operand type {type(args[0]).__name__}")
    return rebase(self, res)


def fast_binary(self: Tensor, other, ufunc: str, name: str):
    """The common no-grad case of add_/sub_/mul_/div_: compute straight into the storage."""
    check_inplace(self, other, overlap=True)
    if needs_grad(self, other):
        return None
    data = self._data
    od = other._data if isinstance(other, Tensor) else other
    res_dt = dtypes.result_type(self, other)
    if ufunc == "true_divide" and res_dt.category != dtypes.FLOAT:
        res_dt = dtypes.get_default_dtype()
    _check_cast(res_dt, self)
    if isinstance(other, Tensor) and other._data.shape != data.shape:
        try:
            array_module(data).broadcast_shapes(other._data.shape, data.shape)
        except ValueError:
            raise broadcast_fail(self, other) from None
        if array_module(data).broadcast_shapes(other._data.shape, data.shape) != data.shape:
            raise RuntimeError(
                f"output with shape [{', '.join(map(str, data.shape))}] doesn't match the "
                f"broadcast shape "
                f"[{', '.join(map(str, array_module(data).broadcast_shapes(other._data.shape, data.shape)))}]"
            )
    getattr(array_module(data), ufunc)(data, od, out=data, casting="unsafe")
    _settle(self)
    self._bump_version()
    return self


class ZeroBackward0(Node):
    """Zeroed values do not depend on the old ones: zero gradient."""

    def backward(self, g):
        return (g * 0,)

    def explain(self, c: Ctx) -> Formula:
        return Formula(f"{c.sym(0)}.zero_()", [Local("0", 0.0, exact=True)])


@tensor_method("zero_")
def zero_(self):
    """Fill with zeros in place."""
    check_inplace(self)
    listening = bool(events.active)
    before = wrap(self._data.copy(), self._dtype) if listening else None
    grad = needs_grad(self)
    if grad:
        old_edge_holder = _snapshot_graph(self)
    self._data[...] = 0
    if grad:
        record(ZeroBackward0(), (old_edge_holder,), self)
    commit_write(self, grad)
    if listening:
        events.emit(events.GradZeroed(self, before))
    return self


def _snapshot_graph(self: Tensor) -> Tensor:
    # Only the graph position is needed (the op saves nothing): skip copying the data.
    old = wrap(self._data, self._dtype)
    old._requires_grad = self._requires_grad
    old._grad_fn = self._grad_fn
    old._output_nr = self._output_nr
    return old


class FillBackward2(Node):
    """Filled values do not depend on the old ones: zero gradient."""

    def backward(self, g):
        return (g * 0,)

    def explain(self, c: Ctx) -> Formula:
        return Formula(f"{c.sym(0)}.fill_(c)", [Local("0", 0.0, exact=True)])


class FillBackward3(Node):
    """fill_(tensor value): zero for self, the summed gradient for the value."""

    def backward(self, g):
        return g * 0, g.sum()

    def explain(self, c: Ctx) -> Formula:
        return Formula(
            f"{c.sym(0)}.fill_({c.sym(1)})",
            [Local("0", 0.0, exact=True), Local("1", 1.0, kind="reduce", exact=True)],
        )


@tensor_method("fill_")
def fill_(self, value):
    """Fill with `value` in place."""
    check_inplace(self, value)
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value._data.ndim} dimensions."
            )
        v = value._data
    else:
        v = value
    grad = needs_grad(self, value)
    old = _snapshot_graph(self) if grad else None
    self._data[...] = v
    _settle(self)
    if grad:
        if isinstance(value, Tensor):
            record(FillBackward3(), (old, value), self)
        else:
            record(FillBackward2(), (old,), self)
    commit_write(self, grad)
    return self


class CopyBackwards(Node):
    """copy_(src): zero for the old self, the gradient (summed to shape) for src."""

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"

    def backward(self, g):
        gs = None
        if self.needs_src:
            gs = g.to(self.src_dtype) if g._dtype is not self.src_dtype else g
        return g * 0, gs

    def explain(self, c: Ctx) -> Formula:
        return Formula(f"{c.sym(0)}.copy_({c.sym(1)})", [Local("0", 0.0, exact=True), const(1)])


@tensor_method("copy_")
def copy_(self, src, non_blocking: bool = False):
    """Copy `src`'s values (broadcast, converted) into this tensor."""
    if not isinstance(src, Tensor):
        raise TypeError(
            f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}"
        )
    check_inplace(self, src, overlap=True)
    xp = array_module(self._data)
    try:
        data = xp.broadcast_to(src._data, self._data.shape)
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({self._data.shape[-1] if self._data.ndim else 1}) must match "
            f"the size of tensor b ({src._data.shape[-1] if src._data.ndim else 1}) at "
            "non-singleton dimension 0"
        ) from None
    grad = needs_grad(self, src)
    old = _snapshot_graph(self) if grad else None
    if type(src._data) is not type(self._data):
        from gradshell.core.device import to_numpy

        data = to_numpy(data) if type(self._data).__module__ == "numpy" else xp.asarray(data)
    self._data[...] = data
    _settle(self)
    if grad:
        node = CopyBackwards()
        node.needs_src = src._requires_grad
        node.src_dtype = src._dtype
        record(node, (old, src), self)
    commit_write(self, grad)
    return self


def write_out(out: Tensor, res: Tensor) -> Tensor:
    """Store `res` in the `out=` tensor (resizing an empty one, as PyTorch does)."""
    if res._requires_grad and grad_mode.state.enabled:
        raise RuntimeError(
            f"{_op_name(res)}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    _check_cast(res._dtype, out)
    if out._data.shape != res._data.shape:
        if out._data.size != 0:
            warnings.warn(
                _RESIZED.format(_dims(out._data.shape), _dims(res._data.shape)),
                stacklevel=_caller_level(),
            )
        out._data = array_module(out._data).empty(res._data.shape, out._dtype.np)
    out._data[...] = res._data
    _settle(out)
    out._bump_version()
    return out


_RESIZED = (
    "An output with one or more elements was resized since it had shape {}, which does not "
    "match the required output shape {}. This behavior is deprecated, and in a future PyTorch "
    "release outputs will not be resized unless they have zero elements. You can explicitly "
    "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0). "
    "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)"
)


def _caller_level() -> int:
    """The warnings stacklevel of the first frame outside gradshell (the learner's line)."""
    import sys

    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("gradshell."):
        frame, level = frame.f_back, level + 1
    return level


def _dims(shape: tuple) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _op_name(res: Tensor) -> str:
    fn = res._grad_fn
    if fn is None:
        return "op"
    import re

    return re.sub(r"Backward\d*$", "", fn.name()).lower()
