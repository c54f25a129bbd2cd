"""Graph nodes: the base `Node` every op's backward class derives from, the leaf sink
`AccumulateGrad`, saved tensors with version checks, and `record` which links an op's
output into the graph.

An op defines a `Node` subclass named as PyTorch names it (`MulBackward0`) whose
`backward` computes input gradients with tensor operations, so that the same formula
serves plain backward (run with grad mode off) and `create_graph=True`.
"""

from __future__ import annotations

import itertools
import re
import weakref

from gradshell.core import grad_mode
from gradshell.core.era import settings
from gradshell.core.tensor import RemovableHandle, Tensor, wrap

BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)
BACKWARD_TWICE_LEGACY = (
    "Trying to backward through the graph a second time, but the buffers have already been "
    "freed. Specify retain_graph=True when calling backward the first time."
)

_sequence = itertools.count()
_LEAF_PRIORITY = float("inf")  # AccumulateGrad runs as soon as it is ready, as in PyTorch


class SavedTensor:
    """A tensor saved for backward, remembering its version to detect in-place changes."""

    __slots__ = ("tensor", "data", "dtype", "counter", "version", "node", "output_nr", "view")

    def __init__(self, t: Tensor, node: Node | None = None) -> None:
        self.view = None  # the view an in-place op wrote into, when it saved its output
        counter = t._counter()
        self.counter = counter
        self.version = counter.value
        self.output_nr = t._output_nr
        if node is None:
            self.tensor = t
            self.node = None
        else:
            # A node saving its own output keeps only the array (no reference cycle) and
            # rebuilds the tensor on unpack.
            self.tensor = None
            self.data = t._data
            self.dtype = t._dtype
            self.node = weakref.ref(node)

    def unpack(self) -> Tensor:
        """The saved tensor; raises PyTorch's error if it was modified in place since."""
        if self.counter.value != self.version:
            raise RuntimeError(self._modified_message())
        if self.tensor is not None:
            return self.tensor
        t = wrap(self.data, self.dtype)
        t._version_counter = self.counter
        node = self.node()
        view = self.view() if self.view is not None else None
        if view is not None and view._grad_fn is not None and not view._grad_fn.invalid_view:
            # an in-place op's output that is a live view: PyTorch unpacks it with the
            # view's new history
            t._grad_fn = view._grad_fn
            t._requires_grad = True
            t._output_nr = view._output_nr
        elif node is not None:
            t._grad_fn = node
            t._requires_grad = True
            t._output_nr = self.output_nr
            if grad_mode.state.enabled:
                # a graph built with create_graph=True now reaches `node` on its own too
                node._in_graph = True
        return t

    def _modified_message(self) -> str:
        if self.tensor is not None:
            t = self.tensor
            shape, dtype, fn = t._data.shape, t._dtype, t._grad_fn
        else:
            shape, dtype, fn = self.data.shape, self.dtype, self.node()
            view = self.view() if self.view is not None else None
            if view is not None:
                # PyTorch names a live view written in place by its own new history
                fn = view._grad_fn
        from gradshell.core.tensor import device_of

        device = device_of(self.tensor._data if self.tensor is not None else self.data)
        typename = ("torch.cuda." if device.type == "cuda" else "torch.") + dtype.legacy_name
        desc = f"[{typename} [{', '.join(str(s) for s in shape)}]]"
        if fn is not None:
            name = re.sub(r"Backward\d*$", "", fn.name())
            desc += f", which is output {self.output_nr} of {name},"
        return (
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {desc} is at version {self.counter.value}; expected version "
            f"{self.version} instead. Hint: enable anomaly detection to find the operation that "
            "failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, "
            "check_nan=False)."
        )


class Node:
    """A backward function in the graph (PyTorch's grad_fn objects)."""

    __module__ = "torch.autograd.graph"  # PyTorch's abstract base of all graph nodes

    #: Name this node's class had in PyTorch 0.2 (legacy print style), or None.
    legacy_name_02: str | None = None
    #: The 0.2 class was a Python Function (module torch.autograd.function).
    legacy_python: bool = True
    #: How many outputs the forward op had (size of the gradient buffer).
    num_outputs = 1
    #: True only for InvalidView: the grad_fn of a view that may no longer be differentiated.
    invalid_view = False
    #: Set once a graph of gradients (create_graph=True) holds this node's saved output.
    _in_graph = False
    _freed = False
    _saved: dict | None = None
    _legacy_kept: dict | None = None
    _pre_hooks = None
    _post_hooks = None
    _tensor_hooks = None  # output_nr -> list of tensor hook dicts / retain-grad owners
    _metadata = None
    _meta = None  # per input edge: (shape, dtype) of the input, or None (set by `record`)
    # The read-only views below are for tools (visualisation); the shell keeps them from
    # learners, whose grad_fn objects offer what PyTorch's do.
    _shell_hidden = frozenset(
        {"sequence_nr", "freed", "saved_values", "kept_after_free", "input_metadata", "has_hooks"}
    )

    next_functions: tuple = ()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        # PyTorch's node classes live in `builtins`: type(y.grad_fn) prints
        # <class 'AddBackward0'>. `_gs_home` keeps the defining module for the shell's policy.
        cls._gs_home = cls.__dict__.get("__module__")
        cls.__module__ = "builtins"

    def __init__(self) -> None:
        self._seq = next(_sequence)

    # -- what PyTorch's grad_fn objects offer -------------------------------------------------
    def name(self) -> str:
        """PyTorch's name for this node, e.g. 'MulBackward0'."""
        return type(self).__name__

    def legacy_name(self) -> str:
        """The name the 0.2-era repr shows, with its module path where it had one."""
        base = self.legacy_name_02 or self.name()
        if self.legacy_python and self.legacy_name_02:
            return "torch.autograd.function." + base
        return base

    @property
    def metadata(self) -> dict:
        """A dict for the learner's own notes about this node."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    @property
    def requires_grad(self) -> bool:
        """Always True for nodes in the graph."""
        return True

    def register_hook(self, hook):
        """Call `hook(grad_inputs, grad_outputs)` after this node runs; it may replace grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = {}
        h = RemovableHandle(self._post_hooks)
        self._post_hooks[h.id] = hook
        return h

    def register_prehook(self, hook):
        """Call `hook(grad_outputs)` before this node runs; it may replace grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        h = RemovableHandle(self._pre_hooks)
        self._pre_hooks[h.id] = hook
        return h

    def __call__(self, *grads):
        """Run this node's backward on `grads` (one per forward output)."""
        return self.apply(list(grads))

    def __repr__(self) -> str:
        return f"<{self.name()} object at {hex(id(self))}>"

    # -- saved tensors ------------------------------------------------------------------------
    def save(self, name: str, t: Tensor, *, is_output: bool = False) -> None:
        """Save `t` for backward under `name` (checked against in-place changes on use)."""
        if self._saved is None:
            self._saved = {}
        self._saved[name] = SavedTensor(t, self if is_output else None)

    def save_scalar(self, name: str, value) -> None:
        """Save a Python number. PyTorch 2.x saves it as a tensor (freed after backward);
        0.2 kept it as a constant, so in the legacy style it survives."""
        if self._saved is None:
            self._saved = {}
        self._saved[name] = value

    def saved(self, name: str):
        """A tensor (or number) saved for backward; raises if freed by an earlier backward."""
        if self._freed:
            kept = self._legacy_kept
            if settings.legacy and kept is not None and name in kept:
                return kept[name]
            raise RuntimeError(BACKWARD_TWICE_LEGACY if settings.legacy else BACKWARD_TWICE)
        v = self._saved[name]
        return v.unpack() if type(v) is SavedTensor else v

    def release(self) -> None:
        """Free the saved tensors (after a backward pass without retain_graph)."""
        saved = self._saved
        if saved:
            self._legacy_kept = {k: v for k, v in saved.items() if type(v) is not SavedTensor}
            saved.clear()
            self._saved = None
            self._freed = True

    @property
    def has_saved(self) -> bool:
        """True if this node still holds tensors saved for backward."""
        return bool(self._saved)

    @property
    def saved_names(self) -> tuple:
        """Names of the values this node saved (empty once freed)."""
        return tuple(self._saved or ())

    # -- read-only views for tools that inspect the graph -----------------------------------
    @property
    def sequence_nr(self) -> float:
        """Creation order: of two ready nodes the engine runs the later-created first
        (AccumulateGrad has infinity: it runs as soon as it is ready)."""
        return self._seq

    @property
    def freed(self) -> bool:
        """True once a backward pass without retain_graph freed the saved values."""
        return self._freed

    @property
    def saved_values(self) -> dict:
        """A copy of the values still saved for backward, by name: `SavedTensor`s (not
        unpacked, so reading them never raises) and Python numbers; empty once freed."""
        return dict(self._saved) if self._saved else {}

    @property
    def kept_after_free(self) -> dict:
        """A copy of the saved numbers that outlive freeing (read in the 0.2 style)."""
        return dict(self._legacy_kept) if self._legacy_kept else {}

    @property
    def input_metadata(self) -> tuple:
        """Per input edge, the (shape, dtype) its gradient must have, or None for an
        input that needs no gradient; empty for a node that was never recorded."""
        return self._meta or ()

    @property
    def has_hooks(self) -> bool:
        """True if hooks are registered on this node (register_hook/register_prehook)."""
        return bool(self._pre_hooks or self._post_hooks)

    # -- running ------------------------------------------------------------------------------
    def apply(self, grads: list):
        """Gradients for each input edge, given gradients for each output."""
        out = self.backward(*grads)
        if not isinstance(out, tuple):
            out = (out,)
        return out

    def backward(self, *grads):
        """Subclasses compute input gradients here."""
        raise NotImplementedError(f"{self.name()} has no backward")


class AccumulateGrad(Node):
    """The sink for a leaf tensor: adds incoming gradients into `variable.grad`."""

    legacy_python = False

    def __init__(self, variable: Tensor) -> None:
        self._seq = _LEAF_PRIORITY
        self.next_functions = ()
        self.variable = variable

    def name(self) -> str:
        """'torch::autograd::AccumulateGrad', as PyTorch names its C++ sink node."""
        return "torch::autograd::AccumulateGrad"

    def backward(self, grad):
        return ()


class InvalidView(Node):
    """Stands for the grad_fn of a view PyTorch forbids differentiating after a write into
    its storage (made in no_grad mode, or one of several views one function returned):
    reading `grad_fn` or using the view in an op raises `message`; it prints as <Invalid>."""

    invalid_view = True

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message

    def name(self) -> str:
        """'Invalid', as PyTorch prints such a view's grad_fn."""
        return "Invalid"

    def backward(self, *grads):
        raise RuntimeError(self.message)


def accumulator_of(t: Tensor) -> AccumulateGrad | None:
    """The AccumulateGrad node of a leaf that requires grad (one per live leaf); None for
    a view made in no_grad mode, which requires grad only through its base (PyTorch gives
    it no accumulator: gradients reaching it are dropped)."""
    if t._grad_via_base:
        return None
    ref = t._accumulator
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(t)
        t._accumulator = weakref.ref(node)
    return node


def existing_accumulator(t: Tensor) -> AccumulateGrad | None:
    """The AccumulateGrad node of leaf `t` if one is alive, without creating one."""
    ref = t._accumulator
    return ref() if ref is not None else None


def edge(t) -> tuple:
    """The (node, input_nr) edge that gradients for tensor `t` flow along."""
    if t is None or not isinstance(t, Tensor) or not t._requires_grad:
        return (None, 0)
    fn = t._grad_fn
    if fn is not None:
        if fn.invalid_view:
            raise RuntimeError(fn.message)
        return (fn, t._output_nr)
    return (accumulator_of(t), 0)


def needs_grad(*tensors) -> bool:
    """True if grad mode is on and any of `tensors` requires grad."""
    if not grad_mode.state.enabled:
        return False
    for t in tensors:
        if isinstance(t, Tensor) and t._requires_grad:
            return True
    return False


def record(node: Node, inputs: tuple, output: Tensor, output_nr: int = 0) -> Tensor:
    """Make `node` the grad_fn of `output`, with edges to `inputs` (tensors or None)."""
    if output_nr == 0:
        edges = []
        meta = []
        for t in inputs:
            if isinstance(t, Tensor) and t._requires_grad:
                fn = t._grad_fn
                if fn is None:
                    edges.append((accumulator_of(t), 0))
                elif fn.invalid_view:
                    raise RuntimeError(fn.message)
                else:
                    edges.append((fn, t._output_nr))
                meta.append((t._data.shape, t._dtype))
            else:
                edges.append(_NO_EDGE)
                meta.append(None)
        node.next_functions = tuple(edges)
        node._meta = tuple(meta)
    output._grad_fn = node
    output._requires_grad = True
    output._output_nr = output_nr
    return output


_NO_EDGE = (None, 0)
