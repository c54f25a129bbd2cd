"""torch.nn.utils.rnn: padding variable-length sequences into one tensor (`pad_sequence`)
and back (`unpad_sequence`). Packed sequences (`PackedSequence` and the pack/unpack
functions) are not supported yet: they raise NotImplementedError."""

from __future__ import annotations

import numpy as np

from gradshell.core.tensor import Tensor
from gradshell.ops import creation
from gradshell.ops.base import broadcast_error
from gradshell.torch._missing import not_supported


def pad_sequence(
    sequences,
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences of shape (L_i, *) into (max L, B, *) — (B, max L, *) with
    batch_first — filling the missing steps with `padding_value`, on the right (or the
    left with padding_side='left')."""
    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0))
    sequences = list(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    max_len = max(s.size(0) for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    batch = len(sequences)
    shape = (batch, max_len, *trailing) if batch_first else (max_len, batch, *trailing)
    out = creation.full(shape, padding_value, dtype=sequences[0].dtype)
    for i, seq in enumerate(sequences):
        n = seq.size(0)
        start = max_len - n if padding_side == "left" else 0
        steps = slice(start, start + n)
        _check_fits((n, *trailing), tuple(seq.shape))
        # Each copy records PyTorch's CopySlices, one per sequence.
        if batch_first:
            out[i, steps] = seq
        else:
            out[steps, i] = seq
    return out


def _check_fits(dst: tuple, src: tuple) -> None:
    # PyTorch copies each sequence into its slot; shapes that do not broadcast fail there.
    try:
        np.broadcast_shapes(dst, src)
    except ValueError:
        raise broadcast_error(dst, src) from None


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list:
    """The list of sequences `pad_sequence` padded, cut back to their `lengths` (a
    tensor). As in PyTorch, a time-first input is transposed in place (transpose_)."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    steps = creation.arange(padded_sequences.shape[1])
    return [seq[steps < n] for seq, n in zip(padded_sequences, lengths, strict=False)]


def _unsupported(name: str):
    def fn(*args, **kwargs):
        raise not_supported(f"torch.nn.utils.rnn.{name}")

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Not supported yet: raises NotImplementedError (torch.nn.utils.rnn.{name})."
    return fn


class PackedSequence(tuple):
    """Not supported yet: creating one raises NotImplementedError."""

    def __new__(cls, *args, **kwargs):
        raise not_supported("torch.nn.utils.rnn.PackedSequence")


pack_padded_sequence = _unsupported("pack_padded_sequence")
pad_packed_sequence = _unsupported("pad_packed_sequence")
pack_sequence = _unsupported("pack_sequence")
unpack_sequence = _unsupported("unpack_sequence")
invert_permutation = _unsupported("invert_permutation")

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]
