"""`help()`, `help(torch.ones)` and `x?`: PyTorch-style documentation for what gradshell
supports.

PyTorch's own docstrings are long reStructuredText pages; a learner needs the signature
and the first paragraph or two, in the same words. `DOCS` holds them for the names the
lessons and tutorials use (written after PyTorch 2.x's documentation); anything else
falls back to its signature and gradshell's own docstring, which says what the object
does here.
"""

from __future__ import annotations

import inspect
from typing import Any

#: PyTorch-style documentation: qualified name -> (signature line, text).
DOCS: dict[str, tuple[str, str]] = {
    "torch.tensor": (
        "tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor",
        'Constructs a tensor with no autograd history (also known as a "leaf tensor") by '
        "copying data.\n\nArgs:\n    data (array_like): Initial data for the tensor. Can be a "
        "list, tuple, NumPy ndarray, scalar, and other types.\n\nKeyword args:\n    dtype "
        "(torch.dtype, optional): the desired data type of returned tensor. Default: if None, "
        "infers data type from data.\n    requires_grad (bool, optional): If autograd should "
        "record operations on the returned tensor. Default: False.",
    ),
    "torch.ones": (
        "ones(*size, *, out=None, dtype=None, layout=torch.strided, device=None, "
        "requires_grad=False) -> Tensor",
        "Returns a tensor filled with the scalar value 1, with the shape defined by the "
        "variable argument size.\n\nArgs:\n    size (int...): a sequence of integers defining "
        "the shape of the output tensor. Can be a variable number of arguments or a "
        "collection like a list or tuple.\n\nKeyword args:\n    requires_grad (bool, "
        "optional): If autograd should record operations on the returned tensor. "
        "Default: False.",
    ),
    "torch.zeros": (
        "zeros(*size, *, out=None, dtype=None, layout=torch.strided, device=None, "
        "requires_grad=False) -> Tensor",
        "Returns a tensor filled with the scalar value 0, with the shape defined by the "
        "variable argument size.",
    ),
    "torch.randn": (
        "randn(*size, *, generator=None, out=None, dtype=None, layout=torch.strided, "
        "device=None, requires_grad=False, pin_memory=False) -> Tensor",
        "Returns a tensor filled with random numbers from a normal distribution with mean 0 "
        "and variance 1 (also called the standard normal distribution).",
    ),
    "torch.rand": (
        "rand(*size, *, generator=None, out=None, dtype=None, layout=torch.strided, "
        "device=None, requires_grad=False, pin_memory=False) -> Tensor",
        "Returns a tensor filled with random numbers from a uniform distribution on the "
        "interval [0, 1).",
    ),
    "torch.arange": (
        "arange(start=0, end, step=1, *, out=None, dtype=None, layout=torch.strided, "
        "device=None, requires_grad=False) -> Tensor",
        "Returns a 1-D tensor of size ⌈(end - start) / step⌉ with values from the interval "
        "[start, end) taken with common difference step beginning from start.",
    ),
    "torch.manual_seed": (
        "manual_seed(seed) -> torch._C.Generator",
        "Sets the seed for generating random numbers on all devices. Returns a "
        "torch.Generator object.",
    ),
    "torch.matmul": (
        "matmul(input, other, *, out=None) -> Tensor",
        "Matrix product of two tensors. If both tensors are 1-dimensional, the dot product "
        "(scalar) is returned. If both arguments are 2-dimensional, the matrix-matrix "
        "product is returned. If the first argument is 1-dimensional and the second is "
        "2-dimensional, a 1 is prepended to its dimension for the purpose of the matrix "
        "multiply; after the matrix multiply, the prepended dimension is removed.",
    ),
    "torch.no_grad": (
        "no_grad()",
        "Context-manager that disables gradient calculation.\n\nDisabling gradient "
        "calculation is useful for inference, when you are sure that you will not call "
        "Tensor.backward(). In this mode, the result of every computation will have "
        "requires_grad=False, even when the inputs have requires_grad=True.",
    ),
    "torch.autograd.grad": (
        "grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, "
        "allow_unused=None, materialize_grads=False) -> tuple[Tensor, ...]",
        "Computes and returns the sum of gradients of outputs with respect to the inputs, "
        "without accumulating them into .grad.",
    ),
    "torch.Tensor.backward": (
        "backward(gradient=None, retain_graph=None, create_graph=False, inputs=None)",
        "Computes the gradient of current tensor wrt graph leaves.\n\nThe graph is "
        "differentiated using the chain rule. If the tensor is non-scalar (i.e. its data has "
        "more than one element) and requires gradient, the function additionally requires "
        "specifying a gradient. It should be a tensor of matching type and shape, that "
        "represents the gradient of the differentiated function w.r.t. self.\n\nThis "
        "function accumulates gradients in the leaves - you might need to zero .grad "
        "attributes or set them to None before calling it.",
    ),
    "torch.Tensor.requires_grad_": (
        "requires_grad_(requires_grad=True) -> Tensor",
        "Change if autograd should record operations on this tensor: sets this tensor's "
        "requires_grad attribute in-place. Returns this tensor.",
    ),
    "torch.Tensor.detach": (
        "detach() -> Tensor",
        "Returns a new Tensor, detached from the current graph. The result will never "
        "require gradient. Returned Tensor shares the same storage with the original one.",
    ),
    "torch.Tensor.zero_": ("zero_() -> Tensor", "Fills self tensor with zeros."),
    "torch.Tensor.item": (
        "item() -> number",
        "Returns the value of this tensor as a standard Python number. This only works for "
        "tensors with one element.",
    ),
    "torch.Tensor.sum": (
        "sum(dim=None, keepdim=False, dtype=None) -> Tensor",
        "Returns the sum of all elements in the input tensor (or of each row over dim).",
    ),
    "torch.Tensor.mean": (
        "mean(dim=None, keepdim=False, *, dtype=None) -> Tensor",
        "Returns the mean value of all elements in the input tensor (or of each row over "
        "dim). Input must be floating point or complex.",
    ),
    "torch.Tensor.retain_grad": (
        "retain_grad() -> None",
        "Enables this Tensor to have their grad populated during backward(). This is a "
        "no-op for leaf tensors.",
    ),
    "torch.nn.Linear": (
        "Linear(in_features, out_features, bias=True, device=None, dtype=None)",
        "Applies an affine linear transformation to the incoming data: y = xA^T + b.",
    ),
    "torch.nn.MSELoss": (
        "MSELoss(size_average=None, reduce=None, reduction='mean')",
        "Creates a criterion that measures the mean squared error (squared L2 norm) between "
        "each element in the input x and target y.",
    ),
    "torch.optim.SGD": (
        "SGD(params, lr=0.001, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, "
        "maximize=False, foreach=None, differentiable=False, fused=None)",
        "Implements stochastic gradient descent (optionally with momentum).",
    ),
}

INTRO = """\
Welcome to gradshell's help.

help(OBJECT) shows how to call OBJECT and what it does, as PyTorch documents it:
    help(torch.ones)    help(torch.Tensor.backward)    help(x.backward)
OBJECT? at the prompt shows the same, with the object's type and value:
    x?    torch.randn?
%help lists the shell's own commands (%explain, %graph, %ledger, ...).
"""

_KEYS: dict[int, str] | None = None


def _resolve(path: str) -> Any:
    from gradshell import torch

    obj: Any = torch
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def _keys() -> dict[int, str]:
    """id(object) -> its DOCS name, for the objects gradshell has (built once)."""
    global _KEYS
    if _KEYS is None:
        table: dict[int, str] = {}
        for name in DOCS:
            try:
                obj = _resolve(name)
            except AttributeError:
                continue
            table[id(obj)] = name
            table[id(getattr(obj, "__func__", obj))] = name
        _KEYS = table
    return _KEYS


def doc_name(obj: Any) -> str | None:
    """The DOCS name documenting `obj` (a function, a class, or a bound method)."""
    keys = _keys()
    for candidate in (obj, getattr(obj, "__func__", None)):
        if candidate is not None and id(candidate) in keys:
            return keys[id(candidate)]
    return None


def documented(obj: Any) -> Any:
    """The object whose documentation `help(obj)` and `obj?` show: the function itself
    behind gradshell's wrappers (a size check, say), never the wrapper."""
    try:
        return inspect.unwrap(obj)
    except ValueError:  # a cycle of __wrapped__: show what was given
        return obj


def help_text(obj: Any) -> str:
    """What `help(obj)` prints."""
    name = doc_name(obj)
    obj = documented(obj)
    name = name or doc_name(obj)
    if name is not None:
        signature, text = DOCS[name]
        return f"Help on {name}:\n\n{signature}\n\n{text}\n"
    title = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    try:
        signature = f"{title}{inspect.signature(obj)}"
    except (TypeError, ValueError):
        signature = title
    doc = inspect.getdoc(obj) or ""
    if not callable(obj) and not isinstance(obj, type):
        doc = inspect.getdoc(type(obj)) or ""
        signature = f"{type(obj).__qualname__} object"
    return f"Help on {signature}:\n\n{doc}\n" if doc else f"Help on {signature}.\n"


def make_help(print_out: Any) -> Any:
    """The `help` builtin of learner sessions, printing with `print_out`."""

    def help(obj: Any = None, /) -> None:  # noqa: A001 - the learner-facing name
        """help(object): how to call it and what it does; help(): how to get help."""
        print_out(INTRO if obj is None else help_text(obj))

    return help


__all__ = ["DOCS", "INTRO", "doc_name", "documented", "help_text", "make_help"]
