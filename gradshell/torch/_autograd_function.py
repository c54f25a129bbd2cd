"""torch.autograd.function: custom differentiable operations written by the learner.

A subclass of `Function` defines `forward(ctx, *args)` and `backward(ctx, *grads)` as
static methods and is called with `MyFn.apply(*args)`. As in PyTorch, the `ctx` both
methods receive *is* the output's grad_fn: a node of a class made for each Function
(`MyFnBackward`), so `y.grad_fn` prints `<torch.autograd.function.MyFnBackward ...>`.
Forward runs with grad mode off; the outputs are then linked into the graph (inputs
returned unchanged become views, inputs marked dirty get their history rebased).
"""

from __future__ import annotations

import functools
import inspect

from gradshell.core import grad_mode
from gradshell.core.autograd import Node, accumulator_of
from gradshell.core.tensor import Tensor, wrap

__all__ = [
    "BackwardCFunction",
    "FunctionMeta",
    "Function",
    "FunctionCtx",
    "InplaceFunction",
    "once_differentiable",
]

_MODULE = "torch.autograd.function"
_NO_EDGE = (None, 0)


class FunctionCtx:
    """What `ctx` offers inside a custom Function's forward and backward."""

    __module__ = _MODULE

    to_save: tuple | None = None
    dirty_tensors: tuple = ()
    non_differentiable: tuple = ()
    materialize_grads = True

    def save_for_backward(self, *tensors) -> None:
        """Keep `tensors` (or None) for backward, checked against later in-place changes."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{i} is of type {type(t).__name__}"
                )
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        """Forward-mode AD is not supported by gradshell."""
        raise NotImplementedError("gradshell does not support forward-mode AD (save_for_forward)")

    def mark_dirty(self, *args: Tensor) -> None:
        """Declare inputs that forward modified in place (they must also be returned)."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args: Tensor) -> None:
        """Declare outputs that never need a gradient (their grads arrive as zeros)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """Whether backward receives zeros (True, the default) or None for unused outputs."""
        self.materialize_grads = bool(value)

    def mark_shared_storage(self, *pairs) -> None:
        """Removed from PyTorch long ago."""
        raise RuntimeError(
            "mark_shared_storage is deprecated. Tensors with shared storages are automatically "
            "tracked. Note that calls to `set_()` are not tracked"
        )


class BackwardCFunction(Node, FunctionCtx):
    """The grad_fn of a custom Function's outputs; it is also the function's `ctx`."""

    __module__ = _MODULE
    _forward_cls: type
    _saved_count = 0
    _is_variable_input: tuple = ()
    _output_info: tuple = ()

    def name(self) -> str:
        """'MyFnBackward' for a Function named MyFn."""
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{_MODULE}.{type(self).__name__} object at {hex(id(self))}>"

    # -- what backward reads ------------------------------------------------------------------
    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to save_for_backward (raises once freed by a backward)."""
        return tuple(self.saved(f"saved_{i}") for i in range(self._saved_count))

    @property
    def saved_variables(self) -> tuple:
        """The old name of saved_tensors (deprecated)."""
        import warnings

        warnings.warn(
            "'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2
        )
        return self.saved_tensors

    @property
    def needs_input_grad(self) -> tuple:
        """For each forward argument: is it a tensor that requires grad?"""
        return self._needs_input_grad

    def _store_saved(self, outputs: tuple) -> None:
        to_save = self.to_save
        self.to_save = None
        if not to_save:
            return
        self._saved = {}
        for i, t in enumerate(to_save):
            if t is None:
                self._saved[f"saved_{i}"] = None
            else:
                own = any(t is o for o in outputs) and t._grad_fn is self
                self.save(f"saved_{i}", t, is_output=own)
        self._saved_count = len(to_save)

    # -- running backward ---------------------------------------------------------------------
    def apply(self, grads: list) -> tuple:
        """Call the Function's backward and return one gradient per tensor input."""
        grads = self._materialized(grads)
        fn_cls = self._forward_cls
        backward_fn, vjp_fn = fn_cls.backward, fn_cls.vjp
        if backward_fn is not Function.backward and vjp_fn is not Function.vjp:
            raise RuntimeError(
                "Implementing both 'backward' and 'vjp' for a custom Function is not allowed. "
                "You should only implement one of them."
            )
        user_fn = vjp_fn if vjp_fn is not Function.vjp else backward_fn
        result = user_fn(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        return self._input_grads(result)

    def _materialized(self, grads: list) -> list:
        out = []
        for g, info in zip(grads, self._output_info, strict=False):
            if g is None and info is not None and self.materialize_grads:
                shape, dtype, xp = info
                g = wrap(xp.zeros(shape, dtype.np), dtype)
            out.append(g)
        return out

    def _input_grads(self, result: tuple) -> tuple:
        expected = len(self._is_variable_input)
        if len(result) > expected:
            if any(r is not None for r in result[expected:]):
                raise RuntimeError(self._count_message(expected, len(result)))
            result = result[:expected]
        if len(result) != expected:
            raise RuntimeError(self._count_message(expected, len(result)))
        grads = []
        for i, (g, is_var) in enumerate(zip(result, self._is_variable_input, strict=True)):
            if is_var:
                if g is not None and not isinstance(g, Tensor):
                    raise TypeError(
                        f"expected Tensor or None (got {type(g).__name__}) as gradient "
                        f"{i} of {self.name()}"
                    )
                grads.append(g)
            elif g is not None:
                raise RuntimeError(
                    f"function {self.name()} returned a gradient different than None at "
                    f"position {i + 1}, but the corresponding forward input was not a Variable"
                )
        return tuple(grads)

    def _count_message(self, expected: int, got: int) -> str:
        return (
            f"function {self.name()} returned an incorrect number of gradients (expected "
            f"{expected}, got {got})"
        )


BackwardCFunction.__module__ = _MODULE


class FunctionMeta(type):
    """Gives each Function subclass its own node class, `<Name>Backward`."""

    def __init__(cls, name, bases, attrs) -> None:
        backward_cls = type(
            name + "Backward",
            (BackwardCFunction,),
            {"_forward_cls": cls, "__module__": _MODULE},
        )
        backward_cls.__module__ = _MODULE  # nodes default to `builtins`; these are Python's
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Base class of custom differentiable operations: define static `forward` and
    `backward` (and optionally `setup_context`), then call `.apply(...)`."""

    __module__ = _MODULE

    def __init__(self, *args, **kwargs) -> None:
        import warnings

        warnings.warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(*args, **kwargs):
        """Compute the outputs (override this)."""
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx, inputs: tuple, output) -> None:
        """Save what backward needs, when forward does not take ctx (optional override)."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Gradients for each forward input, given gradients of the outputs (override)."""
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward-mode AD is not supported by gradshell."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run forward and record the outputs' grad_fn (a `<Name>Backward` node)."""
        with_setup = cls.setup_context is not Function.setup_context
        if with_setup:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, {}
        return _apply(cls, with_setup, args, kwargs)


class InplaceFunction(Function):
    """A Function with an `inplace` flag (PyTorch's helper base class)."""

    __module__ = _MODULE

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


def _apply(cls, with_setup: bool, args: tuple, kwargs: dict):
    ctx = cls._backward_cls()
    tensor_inputs = [a for a in args if isinstance(a, Tensor)]
    ctx._needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
    ctx._is_variable_input = tuple(isinstance(a, Tensor) for a in args)
    executable = grad_mode.state.enabled and any(t._requires_grad for t in tensor_inputs)
    with grad_mode.no_grad():
        if with_setup:
            raw = cls.forward(*args, **kwargs)
            cls.setup_context(ctx, args, raw)
        else:
            raw = cls.forward(ctx, *args, **kwargs)
    single = not isinstance(raw, tuple)
    outputs = (raw,) if single else raw
    if executable:
        ctx.next_functions, ctx._meta = _edges(tensor_inputs)
    outputs = _wrap_outputs(ctx, args, outputs, executable)
    ctx._store_saved(outputs)
    return outputs[0] if single else outputs


def _edges(inputs: list) -> tuple:
    edges, meta = [], []
    for t in inputs:
        if t._requires_grad:
            fn = t._grad_fn
            edges.append((accumulator_of(t), 0) if fn is None else (fn, t._output_nr))
            meta.append((t._data.shape, t._dtype))
        else:
            edges.append(_NO_EDGE)
            meta.append(None)
    return tuple(edges), tuple(meta)


def _contains(items: tuple, t) -> bool:
    return any(x is t for x in items)


def _wrap_outputs(ctx: BackwardCFunction, args: tuple, outputs: tuple, executable: bool):
    from gradshell.core.device import array_module

    dirty, non_diff = ctx.dirty_tensors, ctx.non_differentiable
    for t in dirty:
        if executable and t._requires_grad and t._grad_fn is None:
            raise RuntimeError(
                "a leaf Variable that requires grad has been used in an in-place operation."
            )
    wrapped, info = [], []
    for nr, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            wrapped.append(out)
            info.append(None)
            continue
        info.append((out._data.shape, out._dtype, array_module(out._data)))
        is_input = _contains(args, out)
        is_dirty = _contains(dirty, out)
        is_non_diff = _contains(non_diff, out)
        if is_input and not is_dirty:
            with grad_mode.no_grad():
                out = out.view_as(out)  # an input returned as is: the output is a view of it
        if is_dirty:
            out._bump_version()  # PyTorch counts mark_dirty as one more in-place change
        if executable:
            if is_non_diff or not out._dtype.is_floating_point:
                if not is_dirty:
                    out._requires_grad = False
            else:
                out._grad_fn = ctx
                out._requires_grad = True
                out._output_nr = nr
        wrapped.append(out)
    ctx.num_outputs = len(outputs)
    ctx._output_info = tuple(info)
    return tuple(wrapped)


class DelayedError(Node):
    """A node that fails when reached: the grad of a once_differentiable backward."""

    __module__ = "torch.autograd"

    def __init__(self, message: str, num_inputs: int) -> None:
        super().__init__()
        self.message = message

    def name(self) -> str:
        """PyTorch's C++ name for this node."""
        return "torch::autograd::Error"

    def backward(self, *grads):
        raise RuntimeError(self.message)


DelayedError.__name__ = DelayedError.__qualname__ = "Error"  # PyTorch's name for this node


def once_differentiable(fn):
    """Decorate a Function's backward that cannot itself be differentiated: it runs with
    grad mode off, and differentiating its result raises an error."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.state.enabled:
            return outputs
        if not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        # As PyTorch does: one Error node whose inputs are the outputs, detached into leaves
        # that require grad; differentiating through it raises.
        leaves = []
        for o in outs:
            if isinstance(o, Tensor):
                o = o.detach()
                o._requires_grad = True
            leaves.append(o)
        node = DelayedError(
            "trying to differentiate twice a function that was marked with @once_differentiable",
            len(outs),
        )
        tensors = [t for t in leaves if isinstance(t, Tensor)]
        node.next_functions, node._meta = _edges(tensors)
        node.num_outputs = len(outs)
        wrapped = []
        for nr, o in enumerate(leaves):
            if isinstance(o, Tensor):
                o = wrap(o._data, o._dtype)
                o._grad_fn = node
                o._requires_grad = True
                o._output_nr = nr
            wrapped.append(o)
        return wrapped[0] if single else tuple(wrapped)

    return wrapper


# PyTorch names this module lacks; the module is torch.autograd.function to learners.
_NOT_YET = frozenset({"NestedIOFunction", "custom_function_call"})


def __getattr__(name: str):
    if name in _NOT_YET:
        from gradshell.torch._missing import not_supported

        raise not_supported(f"torch.autograd.function.{name}")
    raise AttributeError(f"module 'torch.autograd.function' has no attribute '{name}'")
