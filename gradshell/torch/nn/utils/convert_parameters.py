"""parameters_to_vector / vector_to_parameters: all parameters as one flat vector, and a
flat vector copied back into them (as the parameters' `.data`)."""

from __future__ import annotations

from collections.abc import Iterable

from gradshell.core.tensor import Tensor
from gradshell.ops.shape import cat


def _check_same_device(param: Tensor, old: int | None) -> int:
    index = param.device.index if param.device.type == "cuda" else -1
    if old is not None and old != index:
        kind = "different GPUs" if index != -1 and old != -1 else "CPU and GPU"
        raise TypeError(f"Found two parameters on {kind}")
    return index


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """One 1-d tensor holding every parameter, flattened, in order."""
    device = None
    vec = []
    for param in parameters:
        device = _check_same_device(param, device)
        vec.append(param.view(-1))
    return cat(vec)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of `vec` into the parameters' data."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    device = None
    pointer = 0
    for param in parameters:
        device = _check_same_device(param, device)
        n = param.numel()
        param.data = vec[pointer : pointer + n].view_as(param).data
        pointer += n
