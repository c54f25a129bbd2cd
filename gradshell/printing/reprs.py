"""Reprs of the small objects a learner looks at, and `format()` of tensors.

grad_fn nodes (`<AddBackward0 object at 0x7f…>`, IPython's `<AddBackward0 at 0x7f…>`),
`torch.Size([2, 2])`, named-tuple results (`torch.return_types.max(` … `)`), and the
dispatch of `repr`/`format` between the modern and the legacy style.
"""

from __future__ import annotations

from collections.abc import Iterable

from gradshell.printing import _protocol
from gradshell.printing._protocol import NodeLike, TensorLike, node_class_name
from gradshell.printing.legacy import is_variable, legacy_repr
from gradshell.printing.modern import modern_repr
from gradshell.printing.options import get_print_style


def tensor_repr(t: TensorLike) -> str:
    """`repr(t)` and `str(t)` of a tensor in the current print style."""
    if get_print_style() == "legacy":
        return legacy_repr(t)
    return modern_repr(t)


def _type_name(t: TensorLike) -> str:
    # The class name PyTorch's object.__format__ error names in each era.
    if _protocol.is_parameter(t):
        return "Parameter"
    if get_print_style() == "legacy":
        return "Variable" if is_variable(t) else t.dtype.legacy_name
    return "Tensor"


def tensor_format(t: TensorLike, spec: str) -> str:
    """`format(t, spec)` / `f"{t:spec}"` as PyTorch does it.

    Modern style: a 0-dim tensor (not a Parameter) formats like its Python number
    (`f"{torch.tensor(2.5):.2f}"` is `'2.50'`); any tensor with an empty spec gives its
    `str`; any other spec raises PyTorch's TypeError. Legacy style: 0.3 had no 0-dim
    tensors and no `__format__`, so only the empty spec works.
    """
    if get_print_style() == "modern" and not _protocol.is_parameter(t):
        values = _protocol.host_values(t)
        if values.ndim == 0:
            return format(values.item(), spec)
    if spec == "":
        return tensor_repr(t)
    raise TypeError(f"unsupported format string passed to {_type_name(t)}.__format__")


def node_repr(node: NodeLike, ipython: bool = False) -> str:
    """The repr of a grad_fn / AccumulateGrad node in the current style.

    Modern: `<AddBackward0 object at 0x7f…>`; legacy (0.2 names):
    `<torch.autograd.function.AddConstantBackward object at 0x7f…>`. With `ipython=True`
    the word `object` is dropped, as IPython's pretty printer does.
    """
    name = node.legacy_name() if get_print_style() == "legacy" else node_class_name(node)
    where = " at " if ipython else " object at "
    return "<" + name + where + hex(id(node)) + ">"


def size_repr(shape: Iterable[int]) -> str:
    """`torch.Size([2, 3])` (the same in both styles)."""
    return "torch.Size([" + ", ".join(str(int(s)) for s in shape) + "])"


def object_repr(obj: object) -> str:
    """`repr(obj)`, using the tensor printer for tensors whatever their class wires."""
    if _protocol.is_tensor(obj):
        return tensor_repr(obj)
    return repr(obj)


def return_types_repr(name: str, fields: Iterable[tuple[str, object]]) -> str:
    """The repr of a named-tuple result such as `torch.return_types.max`.

    Modern: `torch.return_types.max(\\nvalues=tensor(4.),\\nindices=tensor(1))`.
    Legacy: 0.3 returned a plain tuple, so it prints as one.
    """
    fields = list(fields)
    if get_print_style() == "legacy":
        items = [object_repr(v) for _, v in fields]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    body = ",\n".join(f"{key}={object_repr(value)}" for key, value in fields)
    return "torch.return_types." + name + "(\n" + body + ")"
