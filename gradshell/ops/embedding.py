"""torch.nn.functional.embedding: rows of a weight matrix looked up by index tensors,
with PyTorch's node (EmbeddingBackward0), argument checks and errors.

The lookup is an op of its own in PyTorch, not indexing: its output's grad_fn is
`<EmbeddingBackward0>`, its gradient skips the `padding_idx` row, and
`scale_grad_by_freq` divides each row's gradient by how often the row was looked up.
"""

from __future__ import annotations

import numpy as np

from gradshell.core import dtypes
from gradshell.core.autograd import Node, needs_grad, record
from gradshell.core.device import array_module
from gradshell.core.tensor import Tensor, wrap

_INDEX_DTYPES = (dtypes.int64, dtypes.int32)


class EmbeddingBackward0(Node):
    """The gradient of a lookup: each looked-up row gets the sum of its output rows."""

    legacy_name_02 = "EmbeddingBackward"
    no_explanation = "an embedding lookup adds whole gradient rows back into the weight"

    def backward(self, g):
        if needs_grad(g):  # create_graph=True through a lookup
            raise NotImplementedError(
                "gradshell does not support double backward through "
                "torch.nn.functional.embedding yet"
            )
        indices = self.saved("indices")._data
        xp = array_module(g._data)
        grad = xp.zeros(self.weight_shape, g._dtype.np)
        rows = g._data.reshape(-1, self.weight_shape[1])
        flat = indices.reshape(-1)
        if self.scale_grad_by_freq:
            counts = xp.bincount(flat, minlength=self.weight_shape[0])
            rows = rows / counts[flat][:, None].astype(rows.dtype)
        if xp is np:
            np.add.at(grad, flat, rows)
        else:  # CuPy's equivalent of ufunc.at
            xp.add.at(grad, flat, rows)
        if self.padding_idx is not None:
            grad[self.padding_idx] = 0
        return (wrap(grad, g._dtype),)


def embedding(
    input: Tensor,  # noqa: A002 - PyTorch's name
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """The rows of `weight` at the indices in `input` (shape input.shape + (dim,))."""
    if max_norm is not None:
        raise NotImplementedError(
            "gradshell does not support torch.nn.functional.embedding with max_norm yet"
        )
    if sparse:
        raise NotImplementedError(
            "gradshell does not support torch.nn.functional.embedding with sparse=True yet"
        )
    if not isinstance(input, Tensor) or input.dtype not in _INDEX_DTYPES:
        got = input.type() if isinstance(input, Tensor) else type(input).__name__
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {got} instead (while checking arguments for embedding)"
        )
    num = weight.shape[0]
    if padding_idx is not None:
        padding_idx = _padding_idx(padding_idx, num)
    idx = input._data
    if idx.size and (bool((idx < 0).any()) or bool((idx >= num).any())):
        raise IndexError("index out of range in self")
    out = wrap(weight._data[idx], weight._dtype)
    if needs_grad(weight):
        node = EmbeddingBackward0()
        node.save("indices", input)
        node.weight_shape = tuple(weight.shape)
        node.padding_idx = padding_idx
        node.scale_grad_by_freq = scale_grad_by_freq
        record(node, (weight,), out)
    return out


def _padding_idx(padding_idx: int, num: int) -> int:
    """`padding_idx` as a row number (negative counts from the end), checked as PyTorch
    checks it."""
    # PyTorch asserts (an AssertionError); raised explicitly so `python -O` keeps it
    if padding_idx >= num or padding_idx < -num:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx + num if padding_idx < 0 else padding_idx
